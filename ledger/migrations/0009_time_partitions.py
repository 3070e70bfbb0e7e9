"""Time partitions: the event and posting tables by month (issue 19, point 5).

`ledger_event` and `ledger_posting` become PostgreSQL declaratively
partitioned tables, RANGE on `gaming_day`, one partition a month plus a
DEFAULT partition, so that an old month can be detached and archived after
the retention period (`ledger.partitions`, `manage.py ledger_partitions`).

Why `gaming_day` and not `recorded_at` or `position`: it is the business
day every money event carries (the daily close, the journal exports and the
retention periods all count gaming days), it is a column both the writer
and every report already filter on, and a month of it is a month of the
books. A position range would cut the log where the books do not, and
`recorded_at` differs from the day's books around midnight.

What partitioning changes, and what keeps each guarantee:

* A partitioned table's primary key must contain the partition key: the
  event's key is (position, gaming_day). Position alone stays unique
  because the event insert trigger admits only positions that continue the
  book's head with no gap (L2), and a position names its book (0007). The
  posting's key is (id, gaming_day) from a sequence (PostgreSQL 16 has no
  identity columns on partitioned tables).
* The unique (stream, version) constraint cannot stay without the partition
  key either. L6 moves into the new trigger `ledger_event_admits_versions`:
  each statement's versions of a stream must continue the stream's version
  in `ledger_stream` with no gap and no repeat; a violation raises
  SQLSTATE 23505 (unique_violation), as the constraint did. A (stream,
  version, gaming_day) unique index keeps the old name and serves the
  stream reads.
* Statement-level AFTER INSERT triggers with transition tables are allowed
  on a partitioned parent (PostgreSQL forbids them only on partitions and
  only row-level), and they see the rows routed to every partition, so the
  chain (L2, L8), double entry (L3, L5) and balances (L4) triggers are
  recreated on the new parents unchanged. The statement-level append-only
  triggers (L1) too.
* Statement-level triggers fire only for the table a statement names, not
  for the partitions its rows reach. So each partition carries its own
  guard, `ledger_partition_guard`: INSERT, UPDATE, DELETE and TRUNCATE that
  name a partition are refused (an INSERT there would skip the parent's
  chain check), except while `ledger_ensure_partitions` (running as the
  owner) moves a month's rows out of the DEFAULT partition.
* The postings get a `gaming_day` column, their partition key: their
  event's day. The writer does not fill it yet (a posting is inserted in
  the same statement as its event, so no trigger can look the day up, and
  tuple routing happens before a BEFORE ROW trigger could set it); until it
  does, postings carry NULL and live in the DEFAULT partition. The new
  trigger `ledger_posting_day_matches` refuses a posting filed under
  another day than its event's.
* DETACH PARTITION is the owner's archival path and fires no trigger; it is
  recorded in `ledger_archived_range` (per book: the archived positions and
  the hash of the last one, which the chain check then starts from) and
  `ledger_archived_balance` (the archived postings' sum per account) and
  `ledger_archived_stream` (each stream's newest archived version, for
  whoever restores the month), all append-only.

The tables are recreated with their rows copied (a real database is not
empty), the indexes and triggers the old tables had read from the catalog
and recreated on the new parents, and the old grants restated.
"""

from django.db import migrations

PARTITIONED = ("ledger_event", "ledger_posting")

FORWARD = r"""
-- Refuses a statement that names a partition (see the module docstring),
-- and any write to the archive tables but the owner's detach.
CREATE FUNCTION ledger_partition_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('ledger.partitioning', true), '') = 'on'
            AND pg_has_role(current_user,
                            (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'USAGE') THEN
        RETURN NULL;  -- ledger_ensure_partitions moving a month out of DEFAULT
    END IF;
    RAISE EXCEPTION 'ledger: % on % is forbidden; the ledger is append-only: a partition'
        ' is written through its parent table, the archive by the owner''s detach',
        TG_OP, TG_TABLE_NAME
        USING HINT = 'Append through ledger_event / ledger_posting; archive with'
                     ' manage.py ledger_partitions detach.';
END;
$$;

CREATE FUNCTION ledger_guard_partition(partition regclass) RETURNS void
    LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('CREATE TRIGGER ledger_partition_guard'
                   ' BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION ledger_partition_guard()',
                   partition);
END;
$$;

-- One month's partition of each partitioned ledger table, for every month
-- from the one holding `first_day` to the one holding `last_day`. A month
-- whose rows already sit in the DEFAULT partition gets them moved into its
-- new partition. Returns the partitions created.
CREATE FUNCTION ledger_ensure_partitions(first_day date, last_day date)
    RETURNS SETOF text LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    month date;
    next_month date;
    schema text;
    parent text;
    partition text;
    has_rows boolean;
BEGIN
    IF first_day IS NULL OR last_day IS NULL OR last_day < first_day THEN
        RAISE EXCEPTION 'ledger: ensure partitions from % to %: not a range', first_day, last_day;
    END IF;
    IF last_day - first_day > 36600 THEN
        RAISE EXCEPTION 'ledger: at most 100 years of partitions at once';
    END IF;
    -- The pinned search_path starts with pg_catalog: name the schema.
    SELECT n.nspname INTO schema FROM pg_class AS c
        JOIN pg_namespace AS n ON n.oid = c.relnamespace
        WHERE c.oid = 'ledger_event'::regclass;
    month := date_trunc('month', first_day)::date;
    WHILE month <= last_day LOOP
        next_month := (month + interval '1 month')::date;
        FOREACH parent IN ARRAY ARRAY['ledger_event', 'ledger_posting'] LOOP
            partition := parent || '_' || to_char(month, 'YYYY_MM');
            CONTINUE WHEN to_regclass(format('%I.%I', schema, partition)) IS NOT NULL;
            EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.%I WHERE gaming_day >= $1'
                           ' AND gaming_day < $2)', schema, parent || '_default')
                INTO has_rows USING month, next_month;
            IF has_rows THEN
                PERFORM set_config('ledger.partitioning', 'on', true);
                EXECUTE format('CREATE TABLE %I.%I (LIKE %I.%I INCLUDING DEFAULTS'
                               ' INCLUDING CONSTRAINTS)', schema, partition, schema, parent);
                EXECUTE format('INSERT INTO %I.%I SELECT * FROM %I.%I WHERE gaming_day >= $1'
                               ' AND gaming_day < $2', schema, partition,
                               schema, parent || '_default')
                    USING month, next_month;
                EXECUTE format('DELETE FROM %I.%I WHERE gaming_day >= $1 AND gaming_day < $2',
                               schema, parent || '_default')
                    USING month, next_month;
                EXECUTE format('ALTER TABLE %I.%I ATTACH PARTITION %I.%I'
                               ' FOR VALUES FROM (%L) TO (%L)',
                               schema, parent, schema, partition, month, next_month);
                PERFORM set_config('ledger.partitioning', '', true);
            ELSE
                EXECUTE format('CREATE TABLE %I.%I PARTITION OF %I.%I'
                               ' FOR VALUES FROM (%L) TO (%L)',
                               schema, partition, schema, parent, month, next_month);
            END IF;
            PERFORM ledger_guard_partition(format('%I.%I', schema, partition)::regclass);
            RETURN NEXT partition;
        END LOOP;
        month := next_month;
    END LOOP;
END;
$$;
REVOKE EXECUTE ON FUNCTION ledger_ensure_partitions(date, date) FROM PUBLIC;

-- L6 without the unique constraint (see the module docstring): each
-- stream's versions continue `ledger_stream.version`, which the insert
-- trigger keeps (migration 0004) and which outlives a detached month. The
-- trigger's name sorts before ledger_event_appended (triggers of one event
-- fire in name order), so it reads the versions before that one moves
-- them. A statement that does not continue its book's head is that
-- trigger's to refuse, with its own message: L2 and L8 are reported first.
-- (Measured: reading each stream's newest version from the partitioned log
-- instead cost a batch of 100 events half its rate.)
CREATE FUNCTION ledger_event_versions_continue() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    broken record;
BEGIN
    SELECT v.stream, v.first_version, v.last_version, coalesce(s.version, 0) AS current_version
        INTO broken
        FROM (
            SELECT stream, min(version) AS first_version, max(version) AS last_version,
                   count(*) AS inserted, count(DISTINCT version) AS distinct_versions
            FROM new_events GROUP BY stream
        ) AS v
        LEFT JOIN ledger_stream AS s ON s.name = v.stream
        WHERE v.first_version <> coalesce(s.version, 0) + 1
           OR v.last_version - v.first_version + 1 <> v.inserted
           OR v.distinct_versions <> v.inserted
        ORDER BY v.stream LIMIT 1;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    IF EXISTS (
        SELECT 1 FROM (
            SELECT book, min(position) AS first_position FROM new_events GROUP BY book
        ) AS n
        LEFT JOIN ledger_head AS h ON h.id = n.book
        WHERE h.id IS NULL OR n.first_position <> h.position + 1
           OR (SELECT e.prev_hash FROM new_events AS e WHERE e.position = n.first_position)
              IS DISTINCT FROM h.hash
    ) THEN
        RETURN NULL;  -- ledger_event_appended refuses it
    END IF;
    RAISE EXCEPTION 'ledger: versions % to % of stream % do not continue its version %'
        ' with no gap and no repeat',
        broken.first_version, broken.last_version, broken.stream, broken.current_version
        USING ERRCODE = 'unique_violation';
END;
$$;

CREATE FUNCTION ledger_posting_day_matches() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM new_postings AS p
        WHERE p.gaming_day IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM ledger_event AS e
            WHERE e.position = p.event_id AND e.gaming_day = p.gaming_day)
    ) THEN
        RAISE EXCEPTION 'ledger: a posting is filed under another gaming day than its event';
    END IF;
    RETURN NULL;
END;
$$;

-- Where DETACH took a month (see the module docstring).
CREATE TABLE ledger_archived_range (
    book smallint NOT NULL,
    month date NOT NULL,
    first_position bigint NOT NULL,
    last_position bigint NOT NULL,
    last_hash varchar(64) NOT NULL,
    events bigint NOT NULL,
    archived_as text NOT NULL,
    detached_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (book, month),
    CHECK (last_position >= first_position AND events <= last_position - first_position + 1)
);
CREATE TABLE ledger_archived_balance (
    book smallint NOT NULL,
    month date NOT NULL,
    account_id varchar(200) NOT NULL,
    currency varchar(3) NOT NULL,
    debit_minor bigint NOT NULL,
    postings bigint NOT NULL,
    PRIMARY KEY (book, month, account_id, currency)
);
CREATE TABLE ledger_archived_stream (
    book smallint NOT NULL,
    month date NOT NULL,
    stream varchar(200) NOT NULL,
    version integer NOT NULL,
    PRIMARY KEY (stream, month)
);
CREATE TRIGGER ledger_archived_stream_append_only
    BEFORE UPDATE OR DELETE OR TRUNCATE ON ledger_archived_stream
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_change();
-- Only the owner's detach writes the archive (ledger.partitions sets
-- ledger.partitioning for it): a runtime role's row here could otherwise
-- hide a gap from the chain check or block a stream.
CREATE TRIGGER ledger_archived_stream_owner_only
    BEFORE INSERT ON ledger_archived_stream
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_partition_guard();
CREATE TRIGGER ledger_archived_range_owner_only
    BEFORE INSERT ON ledger_archived_range
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_partition_guard();
CREATE TRIGGER ledger_archived_balance_owner_only
    BEFORE INSERT ON ledger_archived_balance
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_partition_guard();
CREATE TRIGGER ledger_archived_range_append_only
    BEFORE UPDATE OR DELETE OR TRUNCATE ON ledger_archived_range
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_change();
CREATE TRIGGER ledger_archived_balance_append_only
    BEFORE UPDATE OR DELETE OR TRUNCATE ON ledger_archived_balance
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_change();

DO $$
DECLARE
    saved_indexes text[];
    saved_triggers text[];
    saved_grants text[];
    saved_sequence_grants text[];
    statement text;
    parent text;
    partition text;
    month date;
    first_month date;
    last_month date;
    next_id bigint;
BEGIN
    -- What the old tables had besides their columns and CHECKs: indexes
    -- that back no constraint, triggers, grants.
    SELECT coalesce(array_agg(pg_get_indexdef(i.indexrelid) ORDER BY i.indexrelid), '{}')
        INTO saved_indexes
        FROM pg_index AS i
        WHERE i.indrelid IN ('ledger_event'::regclass, 'ledger_posting'::regclass)
          AND NOT EXISTS (SELECT 1 FROM pg_constraint AS k WHERE k.conindid = i.indexrelid);
    SELECT coalesce(array_agg(pg_get_triggerdef(t.oid) ORDER BY t.tgname), '{}')
        INTO saved_triggers
        FROM pg_trigger AS t
        WHERE t.tgrelid IN ('ledger_event'::regclass, 'ledger_posting'::regclass)
          AND NOT t.tgisinternal;
    SELECT coalesce(array_agg(format('GRANT %s ON %s TO %s', a.privilege_type, c.relname,
                                     CASE WHEN a.grantee = 0 THEN 'PUBLIC'
                                          ELSE quote_ident(pg_get_userbyid(a.grantee)) END)),
                    '{}')
        INTO saved_grants
        FROM pg_class AS c, aclexplode(c.relacl) AS a
        WHERE c.oid IN ('ledger_event'::regclass, 'ledger_posting'::regclass)
          AND a.grantee <> c.relowner;
    SELECT coalesce(array_agg(format('GRANT %s ON SEQUENCE ledger_posting_id_seq TO %s',
                                     a.privilege_type,
                                     CASE WHEN a.grantee = 0 THEN 'PUBLIC'
                                          ELSE quote_ident(pg_get_userbyid(a.grantee)) END)),
                    '{}')
        INTO saved_sequence_grants
        FROM pg_class AS c, aclexplode(c.relacl) AS a
        WHERE c.oid = pg_get_serial_sequence('ledger_posting', 'id')::regclass
          AND a.grantee <> c.relowner;

    -- The months holding rows, the current one and the next: few partitions
    -- for a fresh database, every month for one with history. The new
    -- tables take partitions of their own names at once, so the rows are
    -- copied once, straight into their months.
    SELECT date_trunc('month', least(min(gaming_day), current_date))::date,
           date_trunc('month', greatest(max(gaming_day), current_date))::date
        INTO first_month, last_month FROM ledger_event;
    last_month := (last_month + interval '1 month')::date;

    CREATE TABLE ledger_event_partitioned (LIKE ledger_event INCLUDING DEFAULTS
        INCLUDING CONSTRAINTS) PARTITION BY RANGE (gaming_day);
    CREATE TABLE ledger_posting_partitioned (LIKE ledger_posting INCLUDING DEFAULTS
        INCLUDING CONSTRAINTS, gaming_day date) PARTITION BY RANGE (gaming_day);
    FOREACH parent IN ARRAY ARRAY['ledger_event', 'ledger_posting'] LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT',
                       parent || '_default', parent || '_partitioned');
        month := first_month;
        WHILE month <= last_month LOOP
            EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                           parent || '_' || to_char(month, 'YYYY_MM'), parent || '_partitioned',
                           month, (month + interval '1 month')::date);
            month := (month + interval '1 month')::date;
        END LOOP;
    END LOOP;

    INSERT INTO ledger_event_partitioned SELECT * FROM ledger_event;
    INSERT INTO ledger_posting_partitioned
        SELECT p.*, e.gaming_day FROM ledger_posting AS p
        LEFT JOIN ledger_event AS e ON e.position = p.event_id;
    SELECT coalesce(max(id), 0) + 1 INTO next_id FROM ledger_posting;

    DROP TABLE ledger_posting;
    DROP TABLE ledger_event;
    ALTER TABLE ledger_event_partitioned RENAME TO ledger_event;
    ALTER TABLE ledger_posting_partitioned RENAME TO ledger_posting;

    CREATE SEQUENCE ledger_posting_id_seq OWNED BY ledger_posting.id;
    PERFORM setval('ledger_posting_id_seq', next_id, false);
    ALTER TABLE ledger_posting ALTER COLUMN id SET DEFAULT nextval('ledger_posting_id_seq');
    FOREACH statement IN ARRAY saved_sequence_grants LOOP
        EXECUTE statement;
    END LOOP;

    ALTER TABLE ledger_event ADD CONSTRAINT ledger_event_pkey PRIMARY KEY (position, gaming_day);
    ALTER TABLE ledger_event ADD CONSTRAINT ledger_event_stream_version
        UNIQUE (stream, version, gaming_day);
    ALTER TABLE ledger_posting ADD CONSTRAINT ledger_posting_pkey
        UNIQUE NULLS NOT DISTINCT (id, gaming_day);
    ALTER TABLE ledger_posting ADD CONSTRAINT ledger_posting_event_index
        UNIQUE NULLS NOT DISTINCT (event_id, index, gaming_day);
    FOREACH statement IN ARRAY saved_indexes LOOP
        EXECUTE statement;
    END LOOP;
    FOREACH statement IN ARRAY saved_triggers LOOP
        EXECUTE statement;
    END LOOP;
    FOREACH statement IN ARRAY saved_grants LOOP
        EXECUTE statement;
    END LOOP;
    FOR partition IN SELECT inhrelid::regclass::text FROM pg_inherits
            WHERE inhparent IN ('ledger_event'::regclass, 'ledger_posting'::regclass) LOOP
        PERFORM ledger_guard_partition(partition::regclass);
    END LOOP;
END;
$$;

CREATE TRIGGER ledger_event_admits_versions
    AFTER INSERT ON ledger_event
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_event_versions_continue();
CREATE TRIGGER ledger_posting_day_matches
    AFTER INSERT ON ledger_posting
    REFERENCING NEW TABLE AS new_postings
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_posting_day_matches();

DO $$
DECLARE
    signature text;
BEGIN
    FOREACH signature IN ARRAY ARRAY[
        'ledger_partition_guard()', 'ledger_guard_partition(regclass)',
        'ledger_ensure_partitions(date, date)', 'ledger_event_versions_continue()',
        'ledger_posting_day_matches()'
    ] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
                       signature, current_schema());
    END LOOP;
END;
$$;
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0008_book_placement")]

    # Not reversible: going back would copy the log into unpartitioned
    # tables, an owner's restore, not a migration step.
    operations = [migrations.RunSQL(FORWARD)]

"""The writer's fast canonical encoding equals the format's definition."""

import datetime as dt
import hashlib

from hypothesis import given
from hypothesis import strategies as st

from ledger.canonical import (
    canonical_event,
    dumps,
    event_hash,
    timestamp_text,
)

json_leaf = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(
    alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",))
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
text = st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
               min_size=1, max_size=20)
moments = st.datetimes(
    min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1),
    timezones=st.sampled_from([dt.UTC, dt.timezone(dt.timedelta(hours=3))]),
)


@given(
    position=st.integers(1, 2**62), stream=text, version=st.integers(1, 2**31 - 1),
    type_=text, schema_version=st.integers(1, 32767),
    payload=st.dictionaries(st.text(max_size=8), json_value, max_size=5),
    metadata=st.dictionaries(st.sampled_from(["actor", "source", "request_id"]), text),
    key=st.none() | text, occurred_at=moments, recorded_at=moments,
    gaming_day=st.dates(), postings=st.lists(
        st.tuples(text, st.integers(-(2**63) + 1, 2**63 - 1), st.sampled_from(["EUR", "SEK"])),
        max_size=4),
)
def test_fast_event_hash_matches_the_canonical_definition(
    position, stream, version, type_, schema_version, payload, metadata, key,
    occurred_at, recorded_at, gaming_day, postings,
):
    """event_hash over pre-encoded parts hashes exactly canonical_event's bytes."""
    prev_hash = "ab" * 32
    definition = canonical_event(
        position=position, stream=stream, version=version, type=type_,
        schema_version=schema_version, payload=payload, metadata=metadata,
        idempotency_key=key, occurred_at=occurred_at, recorded_at=recorded_at,
        gaming_day=gaming_day, postings=postings,
    )
    fast = event_hash(
        prev_hash=prev_hash, position=position, stream=stream, version=version, type=type_,
        schema_version=schema_version, payload_json=dumps(payload), metadata_json=dumps(metadata),
        idempotency_key=key, occurred_at_text=timestamp_text(occurred_at),
        recorded_at_text=timestamp_text(recorded_at), gaming_day=gaming_day, postings=postings,
    )
    assert fast == hashlib.sha256(prev_hash.encode() + definition).hexdigest()


def test_timestamps_are_utc_with_microseconds():
    """Offsets are normalised to UTC; microseconds are always written."""
    helsinki_summer = dt.timezone(dt.timedelta(hours=3))
    moment = dt.datetime(2026, 7, 1, 1, 30, tzinfo=helsinki_summer)
    assert timestamp_text(moment) == "2026-06-30T22:30:00.000000Z"

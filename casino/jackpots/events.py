"""Event types of the jackpots and their payloads.

Every event of a pool is on its stream `jackpot/<venue>/<kind>`
(accounts.pool_stream), so one expected version orders roll-ups, hits,
approvals and payouts of the pool. Payloads (amounts in minor units):

    pool_opened             venue, kind, currency, rulebook{id, version},
                            first_day, pending_account, pool_account,
                            funding_account, base_guarantee_minor,
                            players_min, hits_enabled
    contributions_rolled_up venue, kind, gaming_day, contributions (count of
                            postings to the pending account that day),
                            amount_minor (their sum), currency; postings
                            pending +amount, pool -amount (none when 0).
                            gaming_day is the day rolled up.
    hit_recorded            hit_id (= the hand id), venue, kind, table_id,
                            hand_id, hand_started_at, hand_position, variant,
                            category, threshold, cite, players{seat: player},
                            roles{seat: loser|winner|other}, hands[{seat,
                            value, category, cards, uses_both_hole_cards}],
                            rulebook{id, version}.
                            A progressive hit (house games) adds trigger
                            "progressive", bet_id, round_id, row,
                            pool_basis_points | pays, stake_minor; its
                            hit_id is the bet id, hand_id the round id,
                            table_id the game table, variant the game,
                            category 0, threshold the row, hand_started_at
                            the settlement time, players/roles {box: player
                            / winner}, hands the hole cards and the flop.
    hit_approved            hit_id, approved_by, balance_minor (the posted
                            pool balance the shares are of), shares[{seat,
                            player_id, role, fraction "num/den", amount_minor}],
                            amount_minor (their sum), remainder_minor (cents
                            rounded away, staying in the pool), rounding;
                            a progressive's fraction is "bp/10000" or
                            "<pays>x<stake_minor>", plus win_capped_minor
    hit_rejected            hit_id, rejected_by, reason
    hit_paid                hit_id, paid_by, amount_minor, shares; postings
                            pool +amount, each player/<id>/account -share
                            up to its ceiling and bank/<venue>/payouts_due
                            -the rest, then an `overflow` list
                            (casino/wallet.py, decision
                            online.account.balance_overflow)
    base_topped_up          hit_id, reason (base_guarantee, or shortfall: a
                            fixed progressive prize larger than the pool,
                            appended before hit_paid; absent in early
                            events: base_guarantee), base_guarantee_minor,
                            balance_before_minor, amount_minor; postings
                            house/<venue>/jackpot_funding +amount,
                            pool -amount
    terms_posted            venue, kind, posted_by, notice (where and how
                            the venue posted them), effective_day (the
                            gaming day posted), base_guarantee_minor,
                            criteria{category: {family: threshold}},
                            shares{category: {loser_share, winner_share,
                            others_share | others_share_each}} in basis
                            points, rulebook{id, version}. The terms a
                            venue posts where its rulebook leaves them to
                            the gaming area (002:L1796-1808, 003:L141-142;
                            decision jackpots.posted_terms); a later
                            posting replaces them for hands started after
                            it. A hit found under posted terms carries
                            `terms_position` in hit_recorded.
    four_eyes_refused       on `jackpot/<venue>/<kind>/rejections`: a step a
                            two-person rule refused (casino.roles
                            TWO_PERSON_RULES): command, earlier, record (the
                            hit id), actor, approved_by, rule, message, why.
                            Nothing else is written.
"""

SCHEMA_VERSION = 1

POOL_OPENED = "jackpots.pool_opened"
CONTRIBUTIONS_ROLLED_UP = "jackpots.contributions_rolled_up"
HIT_RECORDED = "jackpots.hit_recorded"
HIT_APPROVED = "jackpots.hit_approved"
HIT_REJECTED = "jackpots.hit_rejected"
HIT_PAID = "jackpots.hit_paid"
BASE_TOPPED_UP = "jackpots.base_topped_up"
TERMS_POSTED = "jackpots.terms_posted"
FOUR_EYES_REFUSED = "jackpots.four_eyes_refused"

POOL_EVENT_TYPES = frozenset({POOL_OPENED, CONTRIBUTIONS_ROLLED_UP, HIT_RECORDED,
                              HIT_APPROVED, HIT_REJECTED, HIT_PAID, BASE_TOPPED_UP,
                              TERMS_POSTED})


def rollup_key(venue: str, kind: str, day) -> str:
    """The idempotency key of a pool's roll-up of one gaming day."""
    return f"jackpots/rollup/{venue}/{kind}/{day.isoformat()}"


def hit_key(hand_id: str) -> str:
    """The idempotency key of the hit check of one settled hand."""
    return f"jackpots/hit-check/{hand_id}"


def progressive_hit_key(bet_id: str) -> str:
    """The idempotency key of the hit of one winning progressive bet (house games)."""
    return f"jackpots/progressive-hit/{bet_id}"

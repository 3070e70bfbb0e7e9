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
                            rulebook{id, version}
    hit_approved            hit_id, approved_by, balance_minor (the posted
                            pool balance the shares are of), shares[{seat,
                            player_id, role, fraction "num/den", amount_minor}],
                            amount_minor (their sum), remainder_minor (cents
                            rounded away, staying in the pool), rounding
    hit_rejected            hit_id, rejected_by, reason
    hit_paid                hit_id, paid_by, amount_minor, shares; postings
                            pool +amount, each player/<id>/account -share
    base_topped_up          hit_id, base_guarantee_minor, balance_before_minor,
                            amount_minor; postings house/<venue>/
                            jackpot_funding +amount, pool -amount
"""

SCHEMA_VERSION = 1

POOL_OPENED = "jackpots.pool_opened"
CONTRIBUTIONS_ROLLED_UP = "jackpots.contributions_rolled_up"
HIT_RECORDED = "jackpots.hit_recorded"
HIT_APPROVED = "jackpots.hit_approved"
HIT_REJECTED = "jackpots.hit_rejected"
HIT_PAID = "jackpots.hit_paid"
BASE_TOPPED_UP = "jackpots.base_topped_up"

POOL_EVENT_TYPES = frozenset({POOL_OPENED, CONTRIBUTIONS_ROLLED_UP, HIT_RECORDED,
                              HIT_APPROVED, HIT_REJECTED, HIT_PAID, BASE_TOPPED_UP})


def rollup_key(venue: str, kind: str, day) -> str:
    """The idempotency key of a pool's roll-up of one gaming day."""
    return f"jackpots/rollup/{venue}/{kind}/{day.isoformat()}"


def hit_key(hand_id: str) -> str:
    """The idempotency key of the hit check of one settled hand."""
    return f"jackpots/hit-check/{hand_id}"

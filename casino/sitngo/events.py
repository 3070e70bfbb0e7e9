"""Events of the sit'n'go jackpots (issue 22 item 6; 002:L3299, L3329).

A series is one posted sit'n'go jackpot: its venue, the consecutive wins that
trigger it and the jackpot fee each entrant pays (both posted in the game
instructions). Its stream `sitngo/<series>` holds the posting and every
recorded tournament; the pool is the liability account
`jackpot/<venue>/sitngo-<series>/pool`, which the reports' chart already
classes as a jackpot pool (casino/reports/chart.py, GL 2410).
"""

from __future__ import annotations

SOURCE = "casino.sitngo"
SCHEMA_VERSION = 1
SERIES_POSTED = "sitngo.series_posted"
TOURNAMENT_RECORDED = "sitngo.tournament_recorded"
PROJECTED_TYPES = frozenset({SERIES_POSTED, TOURNAMENT_RECORDED})


def series_stream(series_id: str) -> str:
    return f"sitngo/{series_id}"


def pool_account(venue: str, series_id: str) -> str:
    return f"jackpot/{venue}/sitngo-{series_id}/pool"

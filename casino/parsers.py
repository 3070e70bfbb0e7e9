"""Request bodies the API accepts: JSON of bounded depth (issue 16, bad input).

DRF's JSON parser turns a syntax error into 400 but lets Python's own
limit on nesting (a RecursionError) through as a 500, and accepts any
depth it can parse. No request of this API nests deeper than a few
levels, so a body deeper than `JSON_DEPTH_MAX` is refused with 400
`request.parse_error` before any view sees it. Bodies larger than
`settings.CASINO_BODY_BYTES_MAX` are refused with 413 earlier, by
casino.middleware.BodySizeLimitMiddleware.
"""

from __future__ import annotations

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError

# Decision (not in the seeds): 32 levels; the deepest request body this API
# takes (a machine batch's rounds, their parts and wins) nests 6.
JSON_DEPTH_MAX = 32


def depth_of(value: Any) -> int:
    """The nesting depth of a parsed JSON value (a scalar is 0), iteratively."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if deepest > JSON_DEPTH_MAX:
            return deepest
        stack.extend((child, depth) for child in children)
    return deepest


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing bodies nested deeper than JSON_DEPTH_MAX with 400."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON parse error - nested deeper than {JSON_DEPTH_MAX}"
                             " levels") from None
        if depth_of(data) > JSON_DEPTH_MAX:
            raise ParseError(f"JSON parse error - nested deeper than {JSON_DEPTH_MAX} levels")
        return data

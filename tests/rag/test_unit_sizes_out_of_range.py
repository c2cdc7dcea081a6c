"""UnitRules sizes out of range are one short line naming the size and its
range: an integer too long to print (or a 5,000-character string) was shown
whole or stopped the check with Python's digit-limit ValueError, and a size
too large to print built rules whose identity() could not be written."""

from __future__ import annotations

import pytest

from jw_rag.errors import ConfigError
from jw_rag.limits import MAX_SIZE
from jw_rag.units import UnitRules

HUGE = 10**5000


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"split_above": -HUGE}, "split_above must be an integer >= 0, got <an integer of about"),
        ({"split_above": HUGE}, f"split_above must be at most {MAX_SIZE:,} characters"),
        ({"passage_chars": HUGE, "split_above": HUGE}, "passage_chars must be at most"),
        ({"group_below": HUGE}, "group_below must be at most"),
        ({"split_above": "9" * 5000}, "split_above must be an integer >= 0, got '999"),
        ({"prefix_weight": HUGE}, "prefix_weight must be a number from 0 to"),
    ],
)
def test_an_out_of_range_size_is_one_short_line(options: dict, error: str) -> None:
    with pytest.raises(ConfigError) as info:
        UnitRules(**options)
    message = str(info.value)
    assert message.startswith(error) and "\n" not in message and len(message) < 200, message


def test_the_largest_size_is_taken_and_named() -> None:
    rules = UnitRules(passage_chars=MAX_SIZE, split_above=MAX_SIZE)
    assert f".{MAX_SIZE}." in rules.identity()

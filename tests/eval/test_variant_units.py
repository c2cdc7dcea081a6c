"""Variant options for retrieval units and delivery reach (chunker-bench --variants)."""

from __future__ import annotations

import pytest

from jw_eval.bench.variants import parse_variant
from jw_rag.errors import ConfigError
from jw_rag.units import NO_UNITS, UnitRules


def test_units_off_indexes_the_chunks_as_made() -> None:
    spec = parse_variant("paragraph:units=off,window_chars=0+none")
    assert spec.units == NO_UNITS and spec.window_chars == 0 and spec.expand == "none"


def test_unit_sizes_change_only_what_they_name() -> None:
    spec = parse_variant("semantic:passage_chars=400,target_chars=800")
    assert spec.units == UnitRules(passage_chars=400)
    assert spec.options == {"target_chars": 800}
    assert parse_variant("paragraph").units is None  # the run's (shipped) rules
    assert parse_variant("paragraph:pooled=0").units == UnitRules(pooled_windows=False)
    assert parse_variant("paragraph:reach=3").reach == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("paragraph:units=on", "units takes only 'off'"),
        ("paragraph:units=off,passage_chars=400", "units=off and unit sizes contradict"),
        ("paragraph:passage_chars=-5", "passage_chars must be a number of characters >= 0"),
        # a word where a size goes was a TypeError crash
        ("paragraph:passage_chars=abc", "passage_chars must be a number of characters"),
        ("paragraph:wide=x", "wide must be a number of characters"),
        ("paragraph:pooled=maybe", "pooled takes on or off, got 'maybe'"),
        # explicit values were silently replaced (split_above=10 ran with 500)
        ("paragraph:split_above=10", r"split_above \(10\) must be >= passage_chars \(500\)"),
        ("paragraph:group_below=9999", r"group_below \(9999\) must be <= passage_chars"),
        (
            "paragraph:reach=-1",
            r"'paragraph:reach=-1': reach must be a number of chunks each way from 0 to 50, got -1",
        ),
        # a reach over the limit was accepted here and refused by retrieve, without the variant
        (
            "paragraph:reach=1000000",
            r"'paragraph:reach=1000000': reach .* from 0 to 50, got 1000000",
        ),
        (
            "paragraph:reach=" + "9" * 200,
            r"'paragraph:reach=9{30,50}\.\.\.'?: reach .* got <an integer of about 201 digits>",
        ),
    ],
)
def test_bad_unit_options_are_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        parse_variant(text)
    assert "\n" not in str(caught.value)


def test_pooled_takes_the_words_for_off() -> None:
    # pooled=no and pooled=false used to run pooled windows (bool("no") is True)
    for word in ("no", "off", "false", "0"):
        assert parse_variant(f"paragraph:pooled={word}").units == UnitRules(pooled_windows=False)
    for word in ("yes", "on", "true", "1"):
        assert parse_variant(f"paragraph:pooled={word}").units == UnitRules(pooled_windows=True)


def test_sizes_not_given_follow_the_given_passage_size() -> None:
    assert parse_variant("paragraph:passage_chars=1200").units == UnitRules(
        passage_chars=1200, split_above=1200
    )
    assert parse_variant("paragraph:passage_chars=100").units == UnitRules(
        passage_chars=100, group_below=100
    )


@pytest.mark.parametrize("key", ["split_above", "pooled"])
def test_a_long_bad_unit_value_is_shown_cut(key: str) -> None:
    value = "9" * 5000 + "x"
    with pytest.raises(ConfigError) as caught:
        parse_variant(f"paragraph:{key}={value}")
    message = str(caught.value)
    assert len(message) < 300 and f"{key}" in message and "'9999" in message, message

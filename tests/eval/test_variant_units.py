"""Variant options for retrieval units and delivery reach (chunker-bench --variants)."""

from __future__ import annotations

import pytest

from jw_eval.bench.variants import parse_variant
from jw_rag.errors import ConfigError
from jw_rag.units import NO_UNITS, UnitRules


def test_units_off_indexes_the_chunks_as_made() -> None:
    spec = parse_variant("paragraph:units=off,windows=0+none")
    assert spec.units == NO_UNITS and spec.windows == 0 and spec.expand == "none"


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
        ("paragraph:passage_chars=-5", "passage_chars must be an integer >= 0"),
        ("paragraph:reach=-1", "reach must be a number of chunks >= 0"),
    ],
)
def test_bad_unit_options_are_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        parse_variant(text)
    assert "\n" not in str(caught.value)

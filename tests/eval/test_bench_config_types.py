"""``BenchConfig`` names a field of the wrong type in one line: ``window_chars``
was checked for its range only, so ``"2000"`` raised a bare TypeError from the
comparison and ``True`` or ``100.0`` passed as a window size (``k`` likewise;
``budgets`` and ``units`` were not checked at all); each now gets a ConfigError
naming the field."""

from __future__ import annotations

import math

import pytest

from jw_eval.bench.runner import BenchConfig
from jw_rag import ConfigError
from jw_rag.units import DEFAULT_UNITS


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("2000", "'2000'"),
        (math.nan, "nan"),
        (math.inf, "inf"),
        (True, "True"),
        (False, "False"),
        (100.0, "100.0"),
        (None, "None"),
        ([2000], "[2000]"),
        ("x" * 500, "'" + "x" * 56 + "..."),
    ],
)
def test_window_chars_of_the_wrong_type_is_named(value: object, shown: str) -> None:
    with pytest.raises(ConfigError) as info:
        BenchConfig(window_chars=value)  # type: ignore[arg-type]
    assert str(info.value) == (
        f"window_chars must be a size in characters from 0 to 20000 (0: none), got {shown}"
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [("10", "'10'"), (math.nan, "nan"), (True, "True"), (10.0, "10.0"), (None, "None")],
)
def test_k_of_the_wrong_type_is_named(value: object, shown: str) -> None:
    with pytest.raises(ConfigError) as info:
        BenchConfig(k=value)  # type: ignore[arg-type]
    assert str(info.value) == f"k must be a whole number from 1 to 1000, got {shown}"


@pytest.mark.parametrize("value", ["2000", 2000, (2000, "4000"), (0,), (True,), (2000.0,)])
def test_budgets_must_be_whole_numbers_of_characters(value: object) -> None:
    with pytest.raises(ConfigError) as info:
        BenchConfig(budgets=value)  # type: ignore[arg-type]
    assert str(info.value).startswith(
        "budgets must be a tuple of whole numbers of characters >= 1, such as (2000, 4000), got "
    )


def test_units_must_be_unit_rules() -> None:
    with pytest.raises(ConfigError, match=r"^units must be a jw_rag.units.UnitRules, got dict$"):
        BenchConfig(units={"window_chars": 0})  # type: ignore[arg-type]


def test_good_values_are_kept_as_given() -> None:
    config = BenchConfig(k=5, window_chars=0, budgets=(500,), units=DEFAULT_UNITS)
    assert (config.k, config.window_chars, config.budgets) == (5, 0, (500,))
    assert BenchConfig(window_chars=20_000).window_chars == 20_000
    assert BenchConfig(budgets=()).budgets == ()

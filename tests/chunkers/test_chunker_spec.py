"""Chunker specs ``name:key=value,...`` in ``get_chunker`` and ``$JW_CHUNKER``."""

from __future__ import annotations

import pytest

from jw_rag.chunkers import SemanticChunker, get_chunker, parse_chunker_spec
from jw_rag.errors import ConfigError


def test_parse_types_the_values() -> None:
    assert parse_chunker_spec(" Semantic : target_chars=800, overflow=0.2 ,x=true,y=abc") == (
        "semantic",
        {"target_chars": 800, "overflow": 0.2, "x": True, "y": "abc"},
    )
    assert parse_chunker_spec("paragraph") == ("paragraph", {})


def test_an_underscore_reads_only_as_a_thousands_separator() -> None:
    """``1_000`` is a thousand; a mistyped ``0_5`` or ``1_0.5`` is not silently 5 or 10.5."""
    assert parse_chunker_spec("s:a=1_000,b=-10_000_000,c=0_5,d=1_0.5,e=10_00,f=_1")[1] == {
        "a": 1000, "b": -10_000_000, "c": "0_5", "d": "1_0.5", "e": "10_00", "f": "_1",
    }  # fmt: skip
    with pytest.raises(ConfigError, match=r"target_chars must be a whole number, got '0_5'"):
        get_chunker("semantic:target_chars=0_5")
    # digits of other scripts are text too (float() reads them), refused as given
    assert parse_chunker_spec("s:a=\u0661\u0662,b=\uff11")[1] == {
        "a": "\u0661\u0662",
        "b": "\uff11",
    }
    with pytest.raises(ConfigError, match="max_chars must be a whole number, got '\u0661\u0662'$"):
        get_chunker("paragraph:max_chars=\u0661\u0662")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("semantic:target_chars", r"^chunker spec 'semantic:target_chars': options are key=value"),
        (":a=1", r"^chunker spec ':a=1' has no name"),
        ("semantic:=3", r"options are key=value pairs, got '=3'$"),
    ],
)
def test_malformed_specs_are_one_line(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_chunker_spec(spec)


def test_get_chunker_builds_from_a_spec_and_keywords_win() -> None:
    chunker = get_chunker("semantic:target_chars=800,max_chars=1200")
    assert isinstance(chunker, SemanticChunker) and chunker.target_chars == 800
    assert get_chunker("semantic:target_chars=800", target_chars=900).target_chars == 900  # type: ignore[attr-defined]
    with pytest.raises(
        ConfigError, match=r"^chunker 'semantic' has no option 'size'; its options are: "
    ):
        get_chunker("semantic:size=3")


def test_env_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JW_CHUNKER", "semantic:target_chars=700")
    assert get_chunker().target_chars == 700  # type: ignore[attr-defined]
    monkeypatch.setenv("JW_CHUNKER", "nope:a=1")
    with pytest.raises(ConfigError, match=r"^unknown chunker 'nope' \(from \$JW_CHUNKER\)"):
        get_chunker()

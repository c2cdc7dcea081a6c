"""An option a chunker declares as text (``separator``, ``markers_path``, a
model or chunker name) takes a spec value as written: ``structure:separator=1_000``
was read as the number 1000 and then refused as "must be text", so no text
that looks like a number (``123``, ``1e5``, ``true``, ``nan``) could be given
in a spec, from ``--chunker``, ``$JW_CHUNKER``, a bench variant or MCP.
Numeric options keep their checks."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from jw_eval.bench.chunking import VariantChunker
from jw_eval.bench.variants import parse_variant
from jw_rag.chunkers import get_chunker, parse_chunker_spec
from jw_rag.errors import ConfigError
from tests.mcp.mcp_client import connect

NUMBER_LIKE = ["123", "1_000", "1e5", "-0", "0x10", "true", "False", "nan", "inf", "12.5"]


@pytest.mark.parametrize("value", NUMBER_LIKE)
def test_a_text_option_takes_a_number_like_value_as_written(value: str) -> None:
    assert parse_chunker_spec(f"structure:separator={value}")[1] == {"separator": value}
    chunker = get_chunker(f"structure:separator={value},max_chars=800")
    assert chunker.separator == value  # type: ignore[attr-defined]
    assert chunker.max_chars == 800  # type: ignore[attr-defined]
    assert parse_chunker_spec(f"llm:model={value},max_chars=900")[1] == {
        "model": value,
        "max_chars": 900,
    }
    assert parse_chunker_spec(f"parent-child:parent={value}")[1] == {"parent": value}


def test_a_markers_file_named_like_a_number_is_looked_for_by_that_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "1e5").write_text('{"en": {"continuation": ["Moreover"]}}', "utf-8")
    chunker = get_chunker("semantic:markers_path=1e5")
    assert str(chunker.markers_path) == "1e5"  # type: ignore[attr-defined]
    with pytest.raises(ConfigError) as err:
        get_chunker("semantic:markers_path=123").chunk(["Moreover, a b c."], "d")
    assert "'123'" in str(err.value) or "123" in str(err.value)
    assert "must be a file or directory path" not in str(err.value)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("structure:max_chars=1e5", "max_chars must be a whole number (write it without"),
        ("structure:prefix_headings=1", "prefix_headings must be true or false, got 1"),
        ("semantic:target_chars=abc", "target_chars must be a whole number, got 'abc'"),
        ("embedding:top_percent=nan", "top_percent must be in (0, 100], got nan"),
    ],
)
def test_numeric_options_keep_their_checks(spec: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        get_chunker(spec)
    assert str(err.value).startswith(message), str(err.value)


def test_a_bench_variant_gives_a_text_option_as_written() -> None:
    spec = parse_variant("structure:separator=2024,max_chars=900")
    assert spec.options == {"separator": "2024", "max_chars": 900}
    assert VariantChunker(spec)._chunker.separator == "2024"  # type: ignore[union-attr]


def test_mcp_set_chunker_gives_a_text_option_as_written(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(tmp_path) as c:
            for value in ("1e5", "123", "true"):
                error, chosen = await c.call(
                    "set_chunker", name="structure", options={"separator": value}
                )
                assert not error, chosen
                assert chosen["chunker"] == f"structure:separator={value}"
                built = get_chunker(chosen["chunker"])
                assert built.separator == value  # type: ignore[attr-defined]

    anyio.run(scenario)


def test_a_number_given_from_python_to_a_text_option_is_still_refused() -> None:
    with pytest.raises(ConfigError, match="^separator must be text, got 5$"):
        get_chunker("structure", separator=5)
    with pytest.raises(ConfigError, match="^parent must be a chunker name or a Chunker, got 5$"):
        get_chunker("parent-child", parent=5)

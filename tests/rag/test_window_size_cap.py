"""Window sizes have an upper bound: a window holds the text of every member,
so a size near a long source's length made each of its n windows almost the
whole source, n²/2 characters in all, built at the source's end and held
together (2,000 short paragraphs: 78 MB and 18 s for one source; 50,000 of
them would have needed some 12 GB). Every option that sets a window size
refuses one above 20,000 characters in one line naming the range, before
anything is read or stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_cli.app import main
from jw_eval.bench.runner import BenchConfig
from jw_eval.bench.variants import parse_variant
from jw_rag.errors import ConfigError
from jw_rag.ingest.pipeline import ingest_documents
from jw_rag.units import UnitRules

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "eval"
TOO_WIDE = [20_001, 10**9]


def _one_line(err: pytest.ExceptionInfo[ConfigError], *parts: str) -> None:
    line = str(err.value)
    assert "\n" not in line
    for part in parts:
        assert part in line, line


@pytest.mark.parametrize("size", TOO_WIDE)
def test_unit_rules_refuse_a_window_wider_than_the_bound(size: int) -> None:
    with pytest.raises(ConfigError) as err:
        UnitRules(window_chars=size, wide_window_chars=0)
    _one_line(err, "window_chars", "from 0 to 20000", f"got {size}")
    with pytest.raises(ConfigError) as err:
        UnitRules(wide_window_chars=size)
    _one_line(err, "wide_window_chars", "from 0 to 20000", f"got {size}")


def test_the_bound_itself_is_a_window_size() -> None:
    assert UnitRules(window_chars=20_000, wide_window_chars=0).window_chars == 20_000
    assert UnitRules(wide_window_chars=20_000).wide_window_chars == 20_000
    assert parse_variant("paragraph:window_chars=20000").window_chars == 20_000
    assert BenchConfig(window_chars=20_000).window_chars == 20_000


@pytest.mark.parametrize("size", TOO_WIDE)
def test_ingest_refuses_a_window_wider_than_the_bound_before_the_store(size: int) -> None:
    with pytest.raises(ConfigError) as err:  # no store needed: refused first
        ingest_documents(None, [], window_chars=size)  # type: ignore[arg-type]
    _one_line(err, "window_chars", "from 0 to 20000", f"got {size}")


@pytest.mark.parametrize("size", TOO_WIDE)
def test_bench_refuses_a_window_wider_than_the_bound(size: int) -> None:
    with pytest.raises(ConfigError) as err:
        BenchConfig(window_chars=size)
    _one_line(err, "window_chars", "from 0 to 20000", f"got {size}")
    with pytest.raises(ConfigError) as err:
        parse_variant(f"paragraph:window_chars={size}")
    _one_line(err, "'paragraph:window_chars=", "window_chars", "from 0 to 20000")
    with pytest.raises(ConfigError) as err:
        parse_variant(f"paragraph:wide={size}")
    _one_line(err, "'paragraph:wide=", "wide_window_chars", "from 0 to 20000")


def test_chunker_bench_cli_refuses_a_wide_window_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.md"
    argv = ["eval", "chunker-bench", "--dataset", str(FIXTURES / "squad_tiny.json")]
    code = main([*argv, "--embedder", "fake", "--quiet", "--out", str(out),
                 "--window-chars", "1000000000"])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code == 2 and not out.exists()
    assert "\n" not in err and "from 0 to 20000" in err and "Traceback" not in err, err

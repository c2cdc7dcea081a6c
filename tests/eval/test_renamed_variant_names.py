"""Bench names that say one thing: the variant option ``window_chars=N`` (window
units' size in characters; old name ``windows=N``), ``reach=N`` (chunks each way
a delivery adds; ``deliver(window=)`` is its old name). Old names work for one
release: one RenamedWarning in Python, one ``warning:`` line from ``jw``."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_eval.bench.expansion import deliver
from jw_eval.bench.runner import BenchConfig
from jw_eval.bench.variants import parse_variant, parse_variants
from jw_rag.chunkers import ParagraphChunker
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError
from jw_rag.renames import RenamedWarning
from jw_rag.store import SQLiteStore

SQUAD = Path(__file__).resolve().parents[1] / "fixtures" / "eval" / "squad_tiny.json"


def _renamed(record: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, RenamedWarning)]


def test_window_chars_is_the_variant_option_and_warns_nothing() -> None:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        spec = parse_variant("paragraph:units=off,window_chars=0+none")
        big = parse_variant("paragraph:window_chars=20000")
    assert not _renamed(record)
    assert spec.window_chars == 0 and spec.expand == "none" and not spec.options
    assert big.window_chars == 20000
    assert BenchConfig().window_chars_for(spec) == 0
    assert BenchConfig().window_chars_for(parse_variant("paragraph")) == 2000
    assert BenchConfig().window_chars_for(parse_variant("semchunk:200")) == 0  # peers: none


def test_old_windows_option_means_window_chars_and_warns_once() -> None:
    with pytest.warns(RenamedWarning) as record:
        old = parse_variant("paragraph:units=off,windows=0+none")
    messages = _renamed(list(record))
    assert messages == [
        "variant 'paragraph:units=off,windows=0+none': windows is renamed window_chars; "
        "use window_chars (windows stops working in the next release)"
    ]
    new = parse_variant("paragraph:units=off,window_chars=0+none")
    assert (old.window_chars, old.units, old.expand, old.options) == (
        new.window_chars,
        new.units,
        new.expand,
        new.options,
    )


def test_variant_old_and_new_that_disagree_are_one_line_error() -> None:
    with pytest.raises(ConfigError) as info:
        parse_variants("paragraph:windows=0,window_chars=2000")
    message = str(info.value)
    assert "\n" not in message
    assert "windows=0 and window_chars=2000 disagree" in message
    assert "pass window_chars only" in message


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("paragraph:window_chars=-3", "window_chars must be a size in characters"),
        ("paragraph:window_chars=1.5", "window_chars must be a size in characters"),
        ("paragraph:reach=-1", "reach must be a number of chunks"),
    ],
)
def test_bad_values_are_one_line_errors(text: str, words: str) -> None:
    with pytest.raises(ConfigError, match=words) as info:
        parse_variant(text)
    assert "\n" not in str(info.value)


def test_old_attribute_and_method_names_still_read_the_same() -> None:
    spec = parse_variant("paragraph:window_chars=700")
    with pytest.warns(RenamedWarning, match="VariantSpec: windows is renamed window_chars"):
        assert spec.windows == 700
    with pytest.warns(RenamedWarning, match=r"windows\(\) is renamed window_chars_for\(\)"):
        assert BenchConfig().windows(spec) == 700


def test_deliver_takes_reach_and_its_old_name(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=32))
    try:
        texts = [f"Paragraph {i} about topic {i} and nothing else at all." for i in range(6)]
        store.replace_source("s", ParagraphChunker(min_chars=5).chunk(texts, "s"))
        hits = store.search("topic 2", 1, mode="bm25")
        new = deliver(store, hits, "neighbors", limit=1, reach=2)
        with pytest.warns(RenamedWarning, match=r"deliver\(\): window is renamed reach"):
            old = deliver(store, hits, "neighbors", limit=1, window=2)
        assert [c.id for c in old[0].expanded] == [c.id for c in new[0].expanded]
        assert len(new[0].expanded) == 5
        with pytest.raises(ConfigError, match="disagree"):
            deliver(store, hits, "neighbors", limit=1, reach=1, window=2)
    finally:
        store.close()


def test_a_window_option_is_refused_not_read_as_a_size_or_a_reach(tmp_path: Path) -> None:
    # bare "window" meant chunks in retrieve and characters in variants: a variant
    # that says window= is refused in one line, never silently given either meaning
    argv = ["eval", "chunker-bench", "--dataset", str(SQUAD), "--embedder", "fake", "--quiet"]
    assert main([*argv, "--variants", "paragraph:window=2", "--peers", "none"]) == 2


def _run(tmp_path: Path, variants: str, capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    out = tmp_path / f"{abs(hash(variants))}.json"
    argv = ["eval", "chunker-bench", "--dataset", str(SQUAD), "--embedder", "fake", "--quiet",
            "--k", "3", "--peers", "none", "--report", "json", "--out", str(out),
            "--variants", variants]  # fmt: skip
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(out.read_text("utf-8")), capsys.readouterr().err


def test_cli_old_option_prints_one_warning_line_and_scores_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, err_old = _run(
        tmp_path, "paragraph:units=off,windows=0+none,paragraph:units=off,windows=2000", capsys
    )
    new, err_new = _run(
        tmp_path,
        "paragraph:units=off,window_chars=0+none,paragraph:units=off,window_chars=2000",
        capsys,
    )
    lines = [line for line in err_old.splitlines() if line.startswith("warning:")]
    assert len(lines) == 2  # one per variant that used the old name
    assert all("windows is renamed window_chars; use window_chars" in line for line in lines)
    assert "renamed" not in err_new
    for a, b in zip(old["variants"], new["variants"], strict=True):
        assert a["metrics"] == b["metrics"]
        assert (a["n_chunks"], a["n_windows"]) == (b["n_chunks"], b["n_windows"])
    assert old["variants"][0]["n_windows"] == 0 < old["variants"][1]["n_windows"]

"""The bundled bench corpus lives inside the jw-eval package and is found
through importlib.resources, so nothing reads it by a checkout-relative path."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

import jw_eval.bundled as bundled
from jw_eval.bench import DEFAULT_DATASET
from jw_eval.bench.chunking import LLM_BENCH_DEFAULTS
from jw_eval.datasets import load_dataset
from jw_rag.errors import ConfigError

PACKAGE = Path(bundled.__file__).resolve().parent


def test_the_corpus_is_inside_the_package() -> None:
    assert DEFAULT_DATASET == PACKAGE / "data" / "chunker_bench"
    assert Path(LLM_BENCH_DEFAULTS["cache_dir"]) == PACKAGE / "data" / "llm_cache"
    assert (Path(LLM_BENCH_DEFAULTS["cache_dir"]) / "CACHEDIR.TAG").is_file()
    corpus = sorted(
        p.relative_to(DEFAULT_DATASET).parts[1] for p in DEFAULT_DATASET.glob("corpus/*/*.html")
    )
    assert corpus == ["en"] * 10 + ["es"] * 10 + ["pt"] * 10


def test_the_default_dataset_loads_every_language() -> None:
    ds = load_dataset(DEFAULT_DATASET)
    assert len(ds.documents) == 30
    assert ds.languages() == {"en": 35, "es": 25, "pt": 27}  # questions per language
    assert len(ds.queries) == 87


def test_nothing_points_at_the_old_location() -> None:
    repo = PACKAGE.parents[3]
    old = "jw-eval/" + "fixtures"
    stale = [
        str(p.relative_to(repo))
        for pattern in ("README.md", "docs/*.md", "benchmarks/*.py", "tests/**/*.py",
                        "packages/*/src/**/*.py", ".ci/run")
        for p in repo.glob(pattern)
        if old in p.read_text("utf-8")
    ]  # fmt: skip
    assert stale == []
    assert not (repo / "packages" / "jw-eval" / "fixtures").exists()


def test_an_unknown_name_is_one_line() -> None:
    with pytest.raises(
        ConfigError, match=r"^no bundled data named 'nope': choose one of chunker_bench, llm_cache$"
    ):
        bundled.bundled_path("nope")


def test_a_missing_folder_names_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(bundled, "files", lambda _package: tmp_path)
    with pytest.raises(
        ConfigError, match="bundled chunker_bench is missing .*reinstall jw-eval"
    ) as info:
        bundled.bundled_path("chunker_bench")
    assert "\n" not in str(info.value)


def test_a_zipped_package_names_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    archive = tmp_path / "jw_eval.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("jw_eval/data/chunker_bench/doctrinal_queries.yaml", "[]\n")
    monkeypatch.setattr(bundled, "files", lambda _package: zipfile.Path(archive, "jw_eval/"))
    with pytest.raises(ConfigError, match="is inside an archive .*install jw-eval as files"):
        bundled.bundled_path("chunker_bench")

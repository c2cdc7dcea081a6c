"""The packages work outside the checkout: their wheels, installed in a fresh
virtual environment, run ``jw eval chunker-bench`` on the corpus the jw-eval
wheel carries.

The wheels are built from this tree with ``uv build``; their dependencies are
installed at the versions ``uv.lock`` pins, from uv's cache when it holds them
(``--offline``), else from the package index. The bench runs from a folder
outside the checkout with nothing of the checkout on the path. About 30 s;
deselect with ``-m "not wheel"``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
UV = shutil.which("uv")
#: The distributions ``jw eval chunker-bench`` needs (jw-cli and what it depends on).
NEEDED = ("jw-cli", "jw-eval", "jw-rag", "jw-core", "jw-gen")

pytestmark = [
    pytest.mark.wheel,
    pytest.mark.timeout(600),
    pytest.mark.skipif(UV is None, reason="needs uv on PATH to build wheels and make a venv"),
]


def _uv(*args: str | Path, cwd: Path, offline: bool = False) -> subprocess.CompletedProcess[str]:
    """Run uv; with ``offline`` try the cache alone first, then the index."""
    assert UV is not None
    command = [UV, *map(str, args)]
    if offline:
        done = subprocess.run([*command, "--offline"], cwd=cwd, capture_output=True, text=True)
        if done.returncode == 0:
            return done
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done


def _wheel(wheels: Path, dist: str) -> Path:
    found = sorted(wheels.glob(f"{dist.replace('-', '_')}-*.whl"))
    assert len(found) == 1, f"expected one {dist} wheel in {wheels}, found {found}"
    return found[0]


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheels")
    _uv("build", "--all-packages", "--wheel", "--out-dir", out, cwd=REPO, offline=True)
    return out


@pytest.fixture(scope="module")
def venv(wheels: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding the needed wheels and their locked dependencies."""
    root = tmp_path_factory.mktemp("venv")
    pins = root / "requirements.txt"
    exported = _uv(
        "export", "--frozen", "--no-hashes", "--no-dev", "--no-emit-workspace",
        "--package", "jw-cli", "--format", "requirements-txt", "--output-file", pins,
        cwd=REPO,
    )  # fmt: skip
    assert pins.is_file(), exported.stderr
    env = root / "env"
    _uv("venv", "--python", sys.executable, env, cwd=root)
    python = env / "bin" / "python"
    # Every dependency is pinned by the lock, so nothing is left to resolve.
    _uv(
        "pip", "install", "--python", python, "--no-deps", "-r", pins,
        *(_wheel(wheels, dist) for dist in NEEDED),
        cwd=root, offline=True,
    )  # fmt: skip
    _uv("pip", "check", "--python", python, cwd=root)
    return env


def _clean_env(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME") and not k.startswith("JW_")
    }
    env["JW_HOME"] = str(home)
    return env


def test_the_jw_eval_wheel_carries_the_corpus(wheels: Path) -> None:
    names = zipfile.ZipFile(_wheel(wheels, "jw-eval")).namelist()
    bench = [n for n in names if n.startswith("jw_eval/data/chunker_bench/")]
    assert "jw_eval/data/chunker_bench/doctrinal_queries.yaml" in bench
    for lang in ("en", "es", "pt"):
        assert sum(n.startswith(f"jw_eval/data/chunker_bench/corpus/{lang}/") for n in bench) == 10
    assert "jw_eval/data/llm_cache/CACHEDIR.TAG" in names
    assert sum(n.startswith("jw_eval/data/llm_cache/") and n.endswith(".json") for n in names) > 0
    # The wheels hold their package and nothing from the checkout's tests or benchmarks.
    for dist in NEEDED:
        tops = {n.split("/")[0] for n in zipfile.ZipFile(_wheel(wheels, dist)).namelist()}
        assert tops == {dist.replace("-", "_"), f"{dist.replace('-', '_')}-0.1.0.dist-info"}


def test_the_default_bench_runs_from_the_installed_wheels(venv: Path, tmp_path: Path) -> None:
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = _clean_env(tmp_path / "home")
    where = subprocess.run(
        [venv / "bin" / "python", "-c", "import jw_eval, jw_cli; print(jw_eval.__file__)"],
        cwd=work, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout
    done = subprocess.run(
        [venv / "bin" / "jw", "eval", "chunker-bench", "--limit", "3", "--report", "json",
         "--out", "report.json"],
        cwd=work, env=env, capture_output=True, text=True, timeout=500,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "wrote report.json" in done.stderr, done.stderr
    # The peers' libraries are jw-eval's `bench` extra, not installed here: the
    # warning names the command for an installed package.
    assert "pip install 'jw-eval[bench]'" in done.stderr, done.stderr
    report = json.loads((work / "report.json").read_text("utf-8"))
    dataset = report["dataset"]
    assert Path(dataset["path"]).is_relative_to(venv), dataset["path"]
    assert not Path(dataset["path"]).is_relative_to(REPO)
    assert (dataset["n_documents"], dataset["n_queries"]) == (30, 3)
    assert [v["name"] for v in report["variants"]] == ["paragraph", "semantic"]
    for variant in report["variants"]:
        assert variant["n_queries"] == 3 and variant["n_chunks"] > 30
        ndcg = variant["metrics"]["ndcg@10"]
        assert 0.0 < ndcg["value"] <= 1.0, variant["metrics"]
        assert ndcg["ci95"][0] <= ndcg["value"] <= ndcg["ci95"][1]
        assert 0.0 < variant["metrics"]["char_precision@5"]["value"] < 1.0


def test_the_llm_variant_runs_on_the_bundled_answer_cache(venv: Path, tmp_path: Path) -> None:
    """jw-gen came in through jw-rag[llm]; the rule-based provider's answers for
    the bundled corpus ship in the jw-eval wheel."""
    done = subprocess.run(
        [venv / "bin" / "jw", "eval", "chunker-bench", "--variants", "llm", "--peers", "none",
         "--limit", "2", "--embedder", "fake", "--report", "json", "--out", "llm.json"],
        cwd=tmp_path, env=_clean_env(tmp_path / "home"), capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "llm.json").read_text("utf-8"))
    [variant] = report["variants"]
    assert variant["name"] == "llm" and variant["n_queries"] == 2 and variant["n_chunks"] > 30
    assert 0.0 < variant["metrics"]["ndcg@10"]["value"] <= 1.0

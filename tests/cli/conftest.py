"""CLI tests: a fake embedder, a wide terminal, and the bundled Spanish corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_eval.bench import DEFAULT_DATASET

REPO = Path(__file__).resolve().parents[2]
CORPUS = DEFAULT_DATASET / "corpus"


@pytest.fixture(autouse=True)
def _cli_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    monkeypatch.setenv("COLUMNS", "220")


@pytest.fixture
def corpus() -> Path:
    return CORPUS

"""The bundled chunker-bench corpus as the bench loads it."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def bench_docs() -> list:
    from jw_eval.bench.chunker_bench import DEFAULT_DATASET
    from jw_eval.datasets import load_dataset

    return sorted(load_dataset(DEFAULT_DATASET).documents.items())

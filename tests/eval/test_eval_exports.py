"""Every name in jw_eval's public ``__all__`` lists exists and is documented."""

from __future__ import annotations

import importlib

import pytest

MODULES = [
    "jw_eval",
    "jw_eval.metrics",
    "jw_eval.datasets",
    "jw_eval.bench",
    "jw_eval.bootstrap",
    "jw_eval.spans",
    "jw_eval.shapes",
]


@pytest.mark.parametrize("name", MODULES)
def test_exported_members_exist(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__doc__
    assert sorted(module.__all__) == sorted(set(module.__all__))
    for member in module.__all__:
        assert hasattr(module, member), f"{name}.{member}"

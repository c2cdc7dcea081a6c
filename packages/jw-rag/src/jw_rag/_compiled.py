"""Which of the chunkers' hot modules this installation runs compiled.

``jw-core`` and ``jw-rag`` compile these modules with mypyc when they are
built with a C compiler (see the packages' ``setup.py``); a compiled module
then shadows the ``.py`` file it was built from.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

__all__ = ["HOT_MODULES", "hot_modules", "is_compiled", "source_of"]

#: The modules the builds compile, by import name.
HOT_MODULES = (
    "jw_core.sentences",
    "jw_rag.chunkers._pieces",
    "jw_rag.chunkers._spans",
    "jw_rag.chunkers.markers",
)


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from a compiled extension, not its ``.py``."""
    return not str(module.__file__).endswith(".py")


def source_of(module: ModuleType) -> Path:
    """The ``.py`` file ``module`` comes from (for a compiled one: was built from)."""
    path = Path(str(module.__file__))
    return path.with_name(path.name.split(".")[0] + ".py")


def hot_modules() -> list[ModuleType]:
    """:data:`HOT_MODULES`, imported."""
    return [importlib.import_module(name) for name in HOT_MODULES]

"""Build jw-core, compiling its hot modules to C with mypyc when it can.

The compiled modules are the same Python source (``mypyc`` type-checks it and
turns it into a C extension); when no C compiler is at hand, or with
``JW_PURE_PYTHON=1`` in the environment, the package installs as plain Python
and behaves the same, only slower.
"""

import os

from setuptools import setup

COMPILED = ["src/jw_core/sentences.py"]


def extensions() -> list:
    if os.environ.get("JW_PURE_PYTHON"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    try:
        exts = mypycify(["--ignore-missing-imports", *COMPILED], opt_level="3", debug_level="0")
    except (SystemExit, Exception) as exc:  # a type error, or mypyc failed: build plain Python
        print(f"jw-core: not compiling {COMPILED} (mypyc stopped: {exc}); installing pure Python")
        return []
    for ext in exts:
        ext.optional = True  # a failed compile leaves the Python modules in charge
    return exts


setup(ext_modules=extensions())

"""Build jw-rag, compiling the chunkers' hot modules to C with mypyc when it can.

Same scheme as jw-core's ``setup.py``: the compiled modules are this Python
source, type-checked and translated by mypyc; without a C compiler, or with
``JW_PURE_PYTHON=1``, the package installs as plain Python and gives the
same chunks, only slower.
"""

import os

from setuptools import Extension, setup

COMPILED = [
    "src/jw_rag/chunkers/_pieces.py",
    "src/jw_rag/chunkers/_spans.py",
    "src/jw_rag/chunkers/markers.py",
]


def extensions() -> list:
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    args = ["--ignore-missing-imports", "--follow-imports=silent", *COMPILED]
    try:
        exts = mypycify(args, opt_level="3", debug_level="0")
    except (SystemExit, Exception) as exc:  # a type error, or mypyc failed: build plain Python
        print(f"jw-rag: not compiling {COMPILED} (mypyc stopped: {exc}); installing pure Python")
        return []
    for ext in exts:
        ext.optional = True  # a failed compile leaves the Python modules in charge
    return exts


# Chunk ids (SHA-1 of a span) in C; without it _pieces hashes with hashlib.
CHUNK_IDS = Extension("jw_rag._chunk_ids", ["src/jw_rag/_chunk_ids.c"], optional=True)

setup(ext_modules=[] if os.environ.get("JW_PURE_PYTHON") else [CHUNK_IDS, *extensions()])

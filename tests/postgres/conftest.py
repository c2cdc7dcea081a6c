"""PostgreSQL store fixtures: a real server (see ``pg_harness``) and the
store test helpers."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "store"))

from pg_harness import pg08_database, pg_database  # noqa: E402, F401  (fixtures)

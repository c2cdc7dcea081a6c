"""Hostile and edge input: the JWPUB / backup writers come from tests/jwpub, the
MCP client from tests/mcp."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "jwpub"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "mcp"))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # hostile_files
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "postgres"))

from pg_harness import pg_database  # noqa: E402, F401  (a fixture)

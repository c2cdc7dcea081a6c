"""Hostile and edge input: the JWPUB / backup writers come from tests/jwpub."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "jwpub"))

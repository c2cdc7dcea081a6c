"""JWPUB / JW Library test setup: the file writers live in jw_formats_builder."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

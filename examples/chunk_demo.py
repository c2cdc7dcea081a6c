"""Chunk the bundled fixture articles with the paragraph and semantic chunkers."""

from __future__ import annotations

import json
from pathlib import Path

from jw_rag.chunkers import get_chunker

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "chunking"

for path in sorted(FIXTURES.glob("*.json")):
    doc = json.loads(path.read_text("utf-8"))
    for name in ("paragraph", "semantic"):
        chunks = get_chunker(name).chunk(doc["paragraphs"], doc["source_id"])
        print(f"\n== {doc['source_id']} · {name}: {len(chunks)} chunks")
        for c in chunks:
            m = c.metadata
            print(
                f"  {str(m['para_ids']):<14} {len(c.text):>5} chars  "
                f"merge={m['merge_reason'] or '-':<19} closure={m['closure_marker'] or '-'}"
            )

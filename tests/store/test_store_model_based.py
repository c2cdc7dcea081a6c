"""Random sequences of writes agree with a plain dict model of the store."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag.model import Chunk
from jw_rag.store import SQLiteStore, Store
from tests.store.store_helpers import CountingEmbedder

SOURCES = ("a", "b", "c")

chunk_st = st.builds(
    lambda source, n, words, lang: Chunk(
        id=f"{source}:{n}",
        text=" ".join(words),
        source_id=source,
        metadata={"language": lang, "chunker": "paragraph", "chunker_version": "1", "n": n},
    ),
    st.sampled_from(SOURCES),
    st.integers(0, 6),
    st.lists(
        st.sampled_from(["luz", "lamp", "ação", "fé", "faith", "Jesús"]), min_size=1, max_size=5
    ),
    st.sampled_from(["en", "es", "pt", None]),
)

op_st = st.one_of(
    st.tuples(st.just("add"), st.lists(chunk_st, max_size=5)),
    st.tuples(st.just("replace"), st.sampled_from(SOURCES), st.lists(chunk_st, max_size=5)),
    st.tuples(st.just("delete"), st.sampled_from(SOURCES)),
)


@settings(max_examples=20, deadline=None)
@given(st.lists(op_st, max_size=8))
def test_store_matches_dict_model(ops: list[tuple]) -> None:
    model: dict[str, Chunk] = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "s.sqlite", embedder=CountingEmbedder())
        assert isinstance(store, Store)
        for op in ops:
            if op[0] == "add":
                unique = list({c.id: c for c in op[1]}.values())
                assert store.add(unique) == len(unique)
                model.update({c.id: c for c in unique})
            elif op[0] == "replace":
                source = op[1]
                unique = list({c.id: c for c in op[2] if c.source_id == source}.values())
                assert store.replace_source(source, unique) is True
                for cid in [i for i, c in model.items() if c.source_id == source]:
                    del model[cid]
                model.update({c.id: c for c in unique})
            else:
                gone = [i for i, c in model.items() if c.source_id == op[1]]
                assert store.delete_source(op[1]) == len(gone)
                for cid in gone:
                    del model[cid]
            all_ids = [f"{s}:{n}" for s in SOURCES for n in range(7)]
            assert store.get(all_ids) == [model[i] for i in all_ids if i in model]
            per_source: dict[str, int] = {}
            for c in model.values():
                per_source[c.source_id] = per_source.get(c.source_id, 0) + 1
            assert store.stats()["per_source"] == per_source
            hits = store.search("lamp", k=50, mode="hybrid")
            assert sorted(h.chunk.id for h in hits) == sorted(model)  # dense ranks them all
            assert {h.chunk.id for h in store.search("lamp", k=50, mode="bm25")} == {
                i for i, c in model.items() if "lamp" in c.text.split()
            }
        store.close()

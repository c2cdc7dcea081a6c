"""Writing the sources of one ingest together: :meth:`Store.replace_sources`
(one transaction in the built-in stores), and :func:`write_one_at_a_time` for
a store without transactions, with an exact account of a failure."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from jw_rag.errors import StoreError, error_line
from jw_rag.store.protocol import SourceWrite, Store

__all__ = ["replace_sources", "write_one_at_a_time"]


def replace_sources(
    store: Store, writes: Sequence[SourceWrite], *, progress: Callable[[str], None] | None = None
) -> list[bool]:
    """Write ``writes`` into ``store``; one ``bool`` each (False: unchanged, skipped).
    The built-in stores write them in one transaction: all or none."""
    return list(store.replace_sources(writes, progress=progress))


def write_one_at_a_time(
    store: Store, writes: Sequence[SourceWrite], *, progress: Callable[[str], None] | None = None
) -> list[bool]:
    """``replace_sources`` for a store without transactions: one
    ``replace_source`` call per source; when one fails after others were
    written, the :class:`~jw_rag.errors.StoreError` names the sources stored
    and those not."""
    done: list[bool] = []
    for w in writes:
        try:
            done.append(
                store.replace_source(
                    w.source_id,
                    w.chunks,
                    content_hash=w.content_hash,
                    parents=w.parents,
                    source_metadata=w.source_metadata,
                )
            )
        except Exception as exc:
            if not any(done):
                raise
            stored = [x.source_id for x, changed in zip(writes, done, strict=False) if changed]
            left = [x.source_id for x in writes[len(done) :]]
            raise StoreError(
                f"{error_line(exc)}; this store writes one source at a time: stored "
                f"{len(stored)} of {len(writes)} sources before the failure "
                f"({', '.join(stored)}), not stored: {', '.join(left)}"
            ) from exc
        if progress is not None:
            progress(w.source_id)
    return done

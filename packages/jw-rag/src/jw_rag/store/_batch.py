"""Writing the sources of one ingest together: :meth:`Store.replace_sources`
(one transaction in the built-in stores), and :func:`write_one_at_a_time` for
a store without transactions, with an exact account of a failure; deleting
several sources together (:func:`delete_sources`) likewise."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from jw_rag.errors import StoreError, error_line
from jw_rag.store.protocol import DeletesSources, SourceWrite, Store

__all__ = ["delete_sources", "replace_sources", "write_one_at_a_time"]


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


def delete_sources(store: Store, source_ids: Sequence[str]) -> list[int]:
    """Delete the sources ``source_ids`` name from ``store``; the chunks
    deleted per id, in the order given. The built-in stores delete them in
    one transaction (``Store.delete_sources``): all or none, and an id naming
    no stored source deletes nothing. A store without that method is checked
    first (every id must name a source) and then deleted from one source at a
    time; when one fails after others were deleted, the
    :class:`~jw_rag.errors.StoreError` names the sources deleted and those not."""
    if isinstance(store, DeletesSources):
        return list(store.delete_sources(source_ids))
    ids = list(source_ids)
    missing = [i for i in ids if not store.matching_sources(i)]
    if missing:
        untouched = "; nothing was deleted" if len(ids) > 1 else ""
        raise StoreError(
            f"no source {', '.join(repr(i) for i in missing[:5])} in the store"
            f"{untouched}: `jw rag stats` lists the stored source ids"
        )
    done: list[int] = []
    for i in ids:
        try:
            done.append(store.delete_source(i))
        except Exception as exc:
            if not done:
                raise
            raise StoreError(
                f"{error_line(exc)}; this store deletes one source at a time: deleted "
                f"{len(done)} of {len(ids)} sources before the failure "
                f"({', '.join(ids[: len(done)])}), not deleted: {', '.join(ids[len(done) :])}"
            ) from exc
    return done

"""The worker pools in-process: a call past its deadline is a one-line error and
its work stops at the next check; a call whose write began is waited for; calls
beyond the pool's threads wait their turn under their own deadline."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import anyio
import numpy as np
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from jw_mcp.watched import WatchedEmbedder
from jw_mcp.workers import Call, CallTimedOut, Pool, begin_write, checkpoint
from jw_rag.embed import FakeEmbedder
from jw_rag.model import Chunk
from jw_rag.store import SQLiteStore


def test_a_late_call_is_an_error_and_its_work_stops_at_the_next_check() -> None:
    pool = Pool("t", 1, 0.2, "--call-timeout")
    reached: list[str] = []

    def work() -> str:
        time.sleep(0.4)
        try:
            checkpoint()
        except CallTimedOut:
            reached.append("stopped")
            raise
        reached.append("wrote")
        return "done"

    with pytest.raises(ToolError) as info:
        anyio.run(pool.run, "ingest text a.txt", work, Call(writes=True))
    message = str(info.value)
    assert "ingest text a.txt did not finish within 0.2 s and was stopped" in message
    assert "the store is unchanged" in message and "--call-timeout" in message
    time.sleep(0.4)
    assert reached == ["stopped"]
    pool.shutdown()


def test_a_call_whose_write_began_is_waited_for() -> None:
    pool = Pool("t", 1, 0.2, "--call-timeout")

    def work() -> str:
        begin_write()
        time.sleep(0.4)
        return "written"

    started = time.monotonic()
    assert anyio.run(pool.run, "delete_source x", work, Call(writes=True)) == "written"
    assert time.monotonic() - started >= 0.35
    pool.shutdown()


def test_calls_beyond_the_threads_wait_and_never_run_once_late() -> None:
    pool = Pool("t", 1, 0.3, "--call-timeout")
    release = threading.Event()
    ran: list[str] = []

    def stuck() -> None:
        release.wait(5)

    def queued() -> None:
        ran.append("queued")

    async def scenario() -> list[str]:
        errors: list[str] = []

        async def one(what: str, work: object) -> None:
            try:
                await pool.run(what, work, Call(writes=True))  # type: ignore[arg-type]
            except ToolError as exc:
                errors.append(str(exc))

        async with anyio.create_task_group() as tg:
            tg.start_soon(one, "first", stuck)
            await anyio.sleep(0.05)
            tg.start_soon(one, "second", queued)
        return errors

    errors = anyio.run(scenario)
    release.set()
    time.sleep(0.1)
    assert any(e.startswith("first did not finish within 0.3 s") for e in errors)
    waited = [e for e in errors if e.startswith("second waited 0.3 s for one of the server's 1")]
    assert waited and "did not run" in waited[0] and "--workers" in waited[0]
    assert ran == []  # the queued call was dropped, not run after its error
    pool.shutdown()


def test_the_watched_embedder_checks_and_reports_per_batch() -> None:
    inner = FakeEmbedder(dim=8)
    watched = WatchedEmbedder(inner, batch=4)
    texts = [f"text {i}" for i in range(10)]
    assert np.allclose(watched.embed(texts), inner.embed(texts))  # outside a call: as is
    seen: list[tuple[float, float | None, str]] = []
    call = Call(lambda *a: seen.append(a), writes=True)

    def work() -> object:
        return watched.embed(texts)

    pool = Pool("t", 1, 5, "--call-timeout")
    vectors = anyio.run(pool.run, "ingest", work, call)
    assert np.allclose(vectors, inner.embed(texts))
    assert seen == [(4, 10, "embedded 4 of 10 chunks"), (8, 10, "embedded 8 of 10 chunks"),
                    (10, 10, "embedded 10 of 10 chunks")]  # fmt: skip
    assert call.abandon()  # embedding alone begins no write: the store marks that
    given_up = Call(writes=True)
    assert given_up.abandon()
    with pytest.raises(CallTimedOut):
        anyio.run(pool.run, "ingest", work, given_up)
    pool.shutdown()


def test_a_call_given_up_mid_embedding_stops_at_the_next_batch() -> None:
    batches: list[int] = []
    call = Call(writes=True)

    class _GivesUp(FakeEmbedder):
        def embed(self, texts):  # noqa: ANN001, ANN201 - the Embedder protocol
            batches.append(len(texts))
            if len(batches) == 2:
                call.abandon()  # the deadline passes during the second batch
            return super().embed(texts)

    watched = WatchedEmbedder(_GivesUp(dim=8), batch=4)
    pool = Pool("t", 1, 5, "--call-timeout")
    with pytest.raises(CallTimedOut):
        anyio.run(pool.run, "ingest", lambda: watched.embed([f"t{i}" for i in range(40)]), call)
    assert batches == [4, 4]  # not the 10 batches of the whole call
    pool.shutdown()


def test_a_cancelled_call_stops_like_a_late_one() -> None:
    pool = Pool("t", 1, 5, "--call-timeout")
    call = Call(writes=True)
    stopped = threading.Event()

    def work() -> None:
        time.sleep(0.3)
        try:
            checkpoint()
        except CallTimedOut:
            stopped.set()
            raise

    async def scenario() -> None:
        with anyio.move_on_after(0.1):  # the client cancels the request
            await pool.run("ingest text a.txt", work, call)

    anyio.run(scenario)
    assert stopped.wait(2)  # given up: its work stopped at the check, before any write
    pool.shutdown()


def test_a_store_write_begins_only_after_its_last_batch_is_embedded(tmp_path: Path) -> None:
    """600 chunks are embedded in three store batches; the call stays cuttable
    until all three are embedded, then the write runs to its end."""
    events: list[str] = []

    class Recording(Call):
        def begin_write(self) -> None:
            events.append("write begins")
            super().begin_write()

    class Counting(FakeEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            events.append(f"embed {len(texts)}")
            return super().embed(texts)

    store = SQLiteStore(tmp_path / "s.sqlite", WatchedEmbedder(Counting(dim=8), batch=1000))
    chunks = (Chunk(f"s:{i}", f"text {i}", "s", {"chunk_index": i}) for i in range(600))
    call = Recording(writes=True)
    pool = Pool("t", 1, 30, "--call-timeout")
    assert anyio.run(pool.run, "ingest", lambda: store.replace_source("s", chunks), call)
    assert events == ["embed 256", "embed 256", "embed 88", "write begins"]
    assert not call.abandon() and store.stats()["chunks"] == 600
    pool.shutdown()
    store.close()

"""Tool calls on bounded thread pools, each under a deadline.

Blocking work (reading files, fetching URLs, parsing, embedding, SQLite) runs
on a :class:`Pool` of fixed size: the server has one for calls that write
(ingest, delete) and one for calls that read, so calls stuck on writes never
keep a search from answering. A call not finished by its deadline is answered
at once with a one-line tool error; the thread it ran on stays taken until the
work stops (a fetch stops at its own deadline), so stuck calls never hold more
threads than the pool has, and calls beyond it wait their turn, under their
own deadline.

A call that timed out leaves the store as it was. Its work checks the
:class:`Call` at each embedding batch (:func:`checkpoint`) and stops there;
once the vectors of a source are ready and its write begins
(:func:`begin_write`), the deadline no longer cuts the call: the caller waits
for the outcome, so a source, or a publication of several, is stored whole or
not at all. A client's cancellation stops a call the same way.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextvars import ContextVar
from typing import Any, TypeVar

import anyio
from mcp.server.mcpserver.exceptions import ToolError

from jw_rag.store import before_writes

__all__ = [
    "Call",
    "CallTimedOut",
    "Pool",
    "Progress",
    "begin_write",
    "checkpoint",
    "current",
    "report",
]

T = TypeVar("T")

#: Sends one progress notification: ``(progress, total or None, message)``.
Progress = Callable[[float, float | None, str], None]

_CURRENT: ContextVar[Call | None] = ContextVar("jw_mcp_call", default=None)


class CallTimedOut(Exception):
    """Raised inside the work of a call that was already answered (timed out or cancelled)."""


class Call:
    """What a tool call's coroutine and the thread doing its work share: whether the
    call was given up, whether its write began, and where progress goes."""

    def __init__(self, progress: Progress | None = None, *, writes: bool = False) -> None:
        self.writes = writes
        self._progress = progress
        self._lock = threading.Lock()
        self._state = "running"  # running -> writing, or running -> abandoned
        self._done = 0.0

    def checkpoint(self) -> None:
        """Raise :class:`CallTimedOut` when the call was given up."""
        with self._lock:
            if self._state == "abandoned":
                raise CallTimedOut

    def begin_write(self) -> None:
        """From here the work runs to its end (or raises CallTimedOut if given up already)."""
        with self._lock:
            if self._state == "abandoned":
                raise CallTimedOut
            self._state = "writing"

    def abandon(self) -> bool:
        """Give the call up; False when its write has begun (then wait for it)."""
        with self._lock:
            if self._state == "writing":
                return False
            self._state = "abandoned"
            return True

    def report(self, advance: float, remaining: float | None, message: str) -> None:
        """Progress: ``advance`` more units done, ``remaining`` still to do (None: unknown)."""
        with self._lock:
            if self._progress is None or self._state == "abandoned":
                return
            self._done += advance
            done = self._done
        self._progress(done, None if remaining is None else done + remaining, message)


def current() -> Call | None:
    """The call whose work runs on this thread (None outside a pool)."""
    return _CURRENT.get()


def checkpoint() -> None:
    """:meth:`Call.checkpoint` of the current call, if any."""
    call = _CURRENT.get()
    if call is not None:
        call.checkpoint()


def begin_write() -> None:
    """:meth:`Call.begin_write` of the current call, if any."""
    call = _CURRENT.get()
    if call is not None:
        call.begin_write()


def report(advance: float, remaining: float | None, message: str) -> None:
    """:meth:`Call.report` of the current call, if any."""
    call = _CURRENT.get()
    if call is not None:
        call.report(advance, remaining, message)


def _in_call(call: Call, work: Callable[[], T]) -> T:
    token = _CURRENT.set(call)
    try:
        if not call.writes:
            return work()
        with before_writes(call.begin_write):  # a store's write begins: run to its end
            return work()
    finally:
        _CURRENT.reset(token)


def _forget(future: asyncio.Future[Any]) -> None:
    """Collect the outcome of work nobody waits for any more."""
    if not future.cancelled():
        future.exception()


class Pool:
    """``workers`` threads for blocking work; each call gets ``timeout`` seconds in all
    (waiting for a thread included). ``option`` names the flag that sets the timeout."""

    def __init__(self, name: str, workers: int, timeout: float, option: str) -> None:
        self.timeout = timeout
        self._workers = workers
        self._option = option
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix=f"jw-mcp-{name}")
        self._lock = threading.Lock()
        self._calls: dict[Future[Any], Call] = {}  # submitted and not ended

    def _ended(self, future: Future[Any]) -> None:
        with self._lock:
            self._calls.pop(future, None)

    async def run(self, what: str, work: Callable[[], T], call: Call) -> T:
        """``work()`` on a pool thread, within the deadline; ``what`` names it in errors."""
        future = self._executor.submit(_in_call, call, work)
        with self._lock:
            self._calls[future] = call
        future.add_done_callback(self._ended)
        waiter = asyncio.wrap_future(future)
        waiter.add_done_callback(_forget)
        try:
            with anyio.fail_after(self.timeout):
                return await asyncio.shield(waiter)
        except TimeoutError:
            if not call.abandon():
                return await waiter  # its write has begun: the outcome is close
            late = self._late(what, started=not future.cancel(), writes=call.writes)
            raise ToolError(late) from None
        except anyio.get_cancelled_exc_class():  # the client cancelled the call
            if call.abandon():
                future.cancel()
            raise

    def _late(self, what: str, *, started: bool, writes: bool) -> str:
        unchanged = "; the store is unchanged" if writes else ""
        if not started:
            return (
                f"{what} waited {self.timeout:g} s for one of the server's {self._workers} "
                f"workers, all busy with earlier calls, and did not run{unchanged}: try again "
                f"later (jw-mcp --workers sets their number)"
            )
        if not writes:  # a read has no point to stop at: it runs on to its end
            return (
                f"{what} did not finish within {self.timeout:g} s and was given up (it runs on "
                f"to its end, holding one of the server's {self._workers} workers): ask for "
                f"less (a shorter query, narrower filters), or start jw-mcp with a longer "
                f"{self._option}"
            )
        return (
            f"{what} did not finish within {self.timeout:g} s and was stopped{unchanged}: "
            f"try a smaller source, or start jw-mcp with a longer {self._option}"
        )

    def shutdown(self) -> None:
        """Take no more calls and drop those still waiting; the running ones go on."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    def stop(self, grace: float) -> bool:
        """Take no more calls, drop those still waiting for a thread and give up the
        running ones (each stops at its next check, and none begins to write);
        wait for a call whose write has begun (up to the pool's timeout), and up
        to ``grace`` seconds for the others. True when every call has ended."""
        self.shutdown()
        with self._lock:
            calls = dict(self._calls)
        writing = [future for future, call in calls.items() if not call.abandon()]
        wait(writing, timeout=self.timeout)
        wait(calls, timeout=grace)
        return all(future.done() for future in calls)

"""What every tool of one server shares, and how a tool call runs its work.

A tool's coroutine checks its arguments (and asks the client for its roots),
then hands the blocking work to the server's write or read
:class:`~jw_mcp.workers.Pool` under that pool's deadline; progress the work
reports goes back to the client as ``notifications/progress`` when the
client sent a progress token. Every failure becomes a one-line tool error.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError

from jw_mcp.addresses import refuse_private_address
from jw_mcp.holder import StoreHolder
from jw_mcp.options import ServerOptions
from jw_mcp.roots import check_under_roots
from jw_mcp.workers import Call, Pool, Progress
from jw_rag.errors import error_line
from jw_rag.ingest import checking_addresses, checking_paths, fetch_limits

__all__ = ["CLOSE_GRACE", "SEND_TIMEOUT", "Setup", "progress_sender", "run_call", "tool_errors"]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Awaitable[Any]])

#: Seconds a worker waits for one progress notification to be sent.
SEND_TIMEOUT = 5.0
#: Seconds the server, once its client has gone, gives the calls it gave up to stop.
CLOSE_GRACE = 3.0


@dataclass(frozen=True, slots=True)
class Setup:
    """One server's store holder, options and worker pools."""

    holder: StoreHolder
    options: ServerOptions
    writes: Pool
    reads: Pool

    @classmethod
    def start(cls, options: ServerOptions, holder: StoreHolder | None = None) -> Setup:
        o = options
        return cls(
            holder or StoreHolder(),
            o,
            Pool("writes", o.workers, o.call_timeout, "--call-timeout"),
            Pool("reads", o.workers, o.read_timeout, "--read-timeout"),
        )

    def close(self, grace: float = CLOSE_GRACE) -> bool:
        """Drop the calls waiting for a worker and give up the running ones
        (:meth:`~jw_mcp.workers.Pool.stop`); close the store when every call has
        ended. False when some call still runs after ``grace`` seconds (its thread
        ends at its own deadline; it writes nothing)."""
        ended = [pool.stop(grace) for pool in (self.writes, self.reads)]
        if all(ended):
            self.holder.close()
        return all(ended)

    @property
    def roots(self) -> tuple[Path, ...]:
        return self.options.roots

    @contextlib.contextmanager
    def reading(self, client_roots: tuple[Path, ...] | None) -> Iterator[None]:
        """What every read of an ingest call runs under: the server's fetch limits;
        unless allowed, the check of every address each hop of a fetch connects
        to; and the roots check of every file at the moment it is opened (under
        the server's roots and, unless None, the client's)."""

        def check_path(shown: str, resolved: Path) -> None:
            check_under_roots(shown, resolved, self.roots, client_roots)

        with contextlib.ExitStack() as stack:
            stack.enter_context(
                fetch_limits(self.options.fetch_max_bytes, self.options.fetch_timeout)
            )
            stack.enter_context(checking_paths(check_path))
            if not self.options.allow_private_urls:
                stack.enter_context(checking_addresses(refuse_private_address))
            yield


def tool_errors(fn: F) -> F:
    """Every failure becomes a ToolError with one line naming it
    (:func:`jw_rag.errors.error_line`), never a bare exception type."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return await fn(*args, **kwargs)
        except ToolError:
            raise
        except Exception as exc:  # noqa: BLE001 - the client gets one line for anything
            raise ToolError(error_line(exc)) from None

    return wrapper  # type: ignore[return-value]


def progress_sender(ctx: Any) -> Progress | None:
    """Sends progress for the request behind ``ctx`` from a worker thread (a no-op
    in the SDK when the client sent no progress token); None without a request."""
    try:
        if ctx is None or ctx.request_context is None:
            return None
    except ValueError:  # a Context outside a request
        return None
    loop = asyncio.get_running_loop()

    def send(progress: float, total: float | None, message: str) -> None:
        sent = asyncio.run_coroutine_threadsafe(ctx.report_progress(progress, total, message), loop)
        with contextlib.suppress(Exception):  # progress is a courtesy: never fail the work
            sent.result(timeout=SEND_TIMEOUT)

    return send


async def run_call(setup: Setup, ctx: Any, what: str, work: Callable[[], T], *, writes: bool) -> T:
    """``work()`` on the write or read pool, under its deadline, reporting progress to ``ctx``."""
    pool = setup.writes if writes else setup.reads
    return await pool.run(what, work, Call(progress_sender(ctx), writes=writes))

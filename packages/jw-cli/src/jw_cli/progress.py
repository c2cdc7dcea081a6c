"""A rich progress bar on stderr matching jw_eval's ``progress(desc, total)`` hook."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

__all__ = ["stderr_progress"]


@contextmanager
def stderr_progress(
    enabled: bool = True,
) -> Iterator[Callable[[str, int | None], Callable[[int], None]]]:
    """Yields ``progress(description, total) -> advance(n)``; a no-op when disabled."""
    if not enabled:
        yield lambda _d, _t: lambda _n: None
        return
    bar = Progress(
        TextColumn("{task.description}", markup=False),  # a path's brackets as they are
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=False,
    )
    with bar:

        def start(description: str, total: int | None) -> Callable[[int], None]:
            task = bar.add_task(description, total=total)
            return lambda n: bar.advance(task, n)

        yield start

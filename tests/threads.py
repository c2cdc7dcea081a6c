"""Running one piece of work in several threads at once, for the tests of
concurrent calls."""

from __future__ import annotations

import threading
from collections.abc import Callable


def run_at_once(work: Callable[[], object], n: int) -> list[BaseException]:
    """Start ``work`` in ``n`` threads, wait for all, and return what they
    raised (empty when every call returned)."""
    errors: list[BaseException] = []

    def guarded() -> None:
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - returned to the test
            errors.append(exc)

    threads = [threading.Thread(target=guarded) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors

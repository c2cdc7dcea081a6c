"""One hostile case in a fresh process: ``python hostile_child.py SPEC REPORT``.

SPEC (JSON): ``cap_bytes``, the address-space limit set first (RLIMIT_AS: a
runaway allocation fails here instead of swapping the machine); ``setup``,
Python run once before the cases; ``runs``, each ``{"argv": [...]}`` (a ``jw``
command line) or ``{"python": "..."}`` (code; an exception it raises is the
result). REPORT (JSON): per run the exit code, stdout, stderr, the exception
(``Type: message``) and the seconds it took; ``peak_kib``, this process's own
peak resident size (``VmHWM``: unlike ``ru_maxrss`` of a child, it does not
carry the parent's high-water mark over the exec).
"""

from __future__ import annotations

import contextlib
import io
import json
import resource
import sys
import time
from typing import Any


def _peak_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status")


def _run(case: dict[str, Any]) -> dict[str, Any]:
    from jw_cli.app import main

    out, err = io.StringIO(), io.StringIO()
    code, error = None, None
    started = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            if "argv" in case:
                code = main(case["argv"])
            else:
                exec(case["python"], {})  # noqa: S102 - the test's own code
        except Exception as exc:  # noqa: BLE001 - reported to the test, which judges it
            error = f"{type(exc).__name__}: {exc}"
    seconds = time.monotonic() - started
    return {"code": code, "out": out.getvalue(), "err": err.getvalue(), "error": error,
            "seconds": seconds}  # fmt: skip


def main() -> None:
    spec_path, report_path = sys.argv[1:3]
    with open(spec_path, encoding="utf-8") as fh:
        spec = json.load(fh)
    cap = int(spec["cap_bytes"])
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    exec(spec.get("setup") or "", {})  # noqa: S102 - the test's own code
    runs = [_run(case) for case in spec["runs"]]
    with open(report_path, "w", encoding="utf-8") as fh:
        json.dump({"runs": runs, "peak_kib": _peak_kib()}, fh)


if __name__ == "__main__":
    main()

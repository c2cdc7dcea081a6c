"""The ``jw`` command fuzzed in-process: random commands, option values,
chunker specs, paths (inside and outside the sandbox's root, links, a FIFO,
folders, missing, unicode, too long) and URLs on a local server that
misbehaves (tests/robust/hostile_server.py). Every case must end within its
deadline with a documented exit code, at most one line of error and never a
Python internal; a failing command leaves the store as it was, and no case
touches a file outside the store and its caches (the sentinel tree)."""

from __future__ import annotations

import contextlib
import io
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

import jw_rag.ingest._source as source_module
from jw_cli.app import main
from tests.robust.fuzz_support import (
    CASE_SECONDS,
    CASES,
    EMBEDDERS,
    EXPANSIONS,
    LANGUAGES,
    MODES,
    SEED,
    TALLY,
    check_error_text,
    chunker_specs,
    deadline,
    resident_kib,
    sources,
    store_state,
    tree,
)

KINDS = ("article", "bible", "epub", "pdf", "markdown", "text", "jwpub", "backup")


@st.composite
def commands(draw: st.DrawFn, sandbox: dict[str, Path], server: str) -> list[str]:
    """One ``jw`` command line; ``{base}`` stands for the sandbox folder."""
    stores = sandbox["stores"]
    store = draw(st.sampled_from(
        [str(stores / "main.sqlite")] * 6
        + [str(stores / "new.sqlite"), str(stores), str(sandbox["root"] / "good.txt"),
           str(sandbox["root"] / "empty.txt"), str(stores / "absent" / "s.sqlite")]
    ))  # fmt: skip
    argv = ["--store", store]
    if draw(st.integers(0, 5)) == 0:
        argv += ["--embedder", draw(st.sampled_from(EMBEDDERS))]
    if draw(st.integers(0, 5)) == 0:
        argv += ["--chunker", draw(chunker_specs())]
    what = draw(st.sampled_from(("ingest",) * 5 + ("search",) * 3 + ("chunk", "chunk", "stats",
                                                                       "delete", "diff", "junk")))  # fmt: skip
    src = draw(sources(sandbox, server))
    if what == "ingest":
        argv += ["rag", "ingest", draw(st.sampled_from((*KINDS, "html", ""))), src]
        flags = {"--chunker": chunker_specs(), "--language": st.sampled_from(LANGUAGES),
                 "--source-id": st.sampled_from(("x", "", " ", "a/b", "é" * 300, "kept"))}  # fmt: skip
        for flag, values in flags.items():
            if draw(st.booleans()):
                argv += [flag, draw(values)]
        argv += [f for f in ("--replace", "--skip-bad", "--json") if draw(st.booleans())]
    elif what == "search":
        query = draw(st.one_of(st.sampled_from(("water", "soil roots", "", "*", '"', "NEAR(",
                                                "ñandú", "x" * 3000)), st.text(max_size=30)))  # fmt: skip
        argv += ["rag", "search", query]
        if draw(st.booleans()):
            argv += ["--k", draw(st.sampled_from(("1", "0", "-3", "1000", "10001", "1e3", "x")))]
        for flag, values in {"--mode": MODES, "--expand": EXPANSIONS, "--language": LANGUAGES,
                             "--source": ("good", "kept", "", "nope")}.items():  # fmt: skip
            if draw(st.booleans()):
                argv += [flag, draw(st.sampled_from(values))]
        if draw(st.booleans()):
            argv.append("--json")
    elif what == "chunk":
        argv += ["rag", "chunk", src]
        if draw(st.booleans()):
            argv += ["--chunker", draw(chunker_specs())]
        if draw(st.booleans()):
            argv.append("--json")
    elif what == "stats":
        argv += ["rag", "stats"] + (["--json"] if draw(st.booleans()) else [])
    elif what == "delete":
        argv += ["rag", "delete", "--source", draw(st.sampled_from(("good", "kept", "", "nope")))]
    elif what == "diff":
        out = draw(st.sampled_from((str(sandbox["out"] / "d.html"), str(sandbox["out"]))))
        specs = ",".join(draw(st.lists(chunker_specs(), min_size=0, max_size=2)))
        argv += ["rag", "diff", src, "--html", out, "--chunkers", specs]
    else:
        argv += draw(st.lists(st.text(max_size=10), max_size=4))
    base = str(sandbox["base"])
    return [a.replace("{base}", base) for a in argv]


def _run(argv: list[str]) -> tuple[Any, str, str, float]:
    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), deadline():
        code = main(argv)
    return code, out.getvalue(), err.getvalue(), time.monotonic() - started


def _check(argv: list[str], code: Any, out: str, err: str, seconds: float) -> None:
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in out + err, (argv, err)
    assert seconds < CASE_SECONDS, (argv, seconds)
    if code == 0:
        return
    if "Usage:" in err:  # Typer's usage error: a usage line, a hint, one error line
        lines = [line for line in err.splitlines() if "Error" in line or "error:" in line]
        assert len(lines) == 1, (argv, err)
        check_error_text(lines[0], " ".join(argv))
        return
    lines = [line for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0] == lines[-1], (argv, err)
    check_error_text(errors[0], " ".join(argv))


def test_jw_commands_under_fuzz(
    fuzz_sandbox: dict[str, Path], fuzz_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox, server = fuzz_sandbox, fuzz_server
    monkeypatch.setattr(source_module, "FETCH_DEADLINE", 1.5)
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    monkeypatch.setenv("JW_HOME", str(sandbox["home"]))
    monkeypatch.setenv("JW_CHUNK_CACHE_DIR", str(sandbox["home"] / "chunk-cache"))
    main_store = sandbox["stores"] / "main.sqlite"
    assert main(["--store", str(main_store), "rag", "ingest", "text",
                 str(sandbox["root"] / "good.txt"), "--source-id", "kept"]) == 0  # fmt: skip
    files = tree(sandbox["base"])
    _, start_hwm = resident_kib()

    @seed(SEED)
    @settings(max_examples=CASES * 3 // 5, deadline=None, database=None,
              phases=(Phase.explicit, Phase.generate, Phase.shrink),
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(commands(sandbox, server))
    def case(argv: list[str]) -> None:
        TALLY.count("CLI cases")
        store = Path(argv[1])
        before = store_state(store) if store.is_file() else None
        _, hwm_before = resident_kib()
        code, out, err, seconds = _run(argv)

        def checks() -> None:
            _check(argv, code, out, err, seconds)
            if code != 0 and before is not None:
                assert store_state(store) == before, (argv, "the failed command changed the store")
            kept = tree(sandbox["base"], store)
            wanted = {k: v for k, v in files.items() if not _store_file(sandbox, store, k)}
            assert kept == wanted, (argv, "a file outside the store changed")
            assert resident_kib()[1] - hwm_before < 300_000, (argv, "the case took 300 MB more")

        checks()
        current = tree(sandbox["base"])
        if current != files:  # the store's own file (a store named in the root): as it is now
            _restore(sandbox)
            files.clear()
            files.update(tree(sandbox["base"]))

    case()
    TALLY.peaks["fuzzing process (CLI)"] = resident_kib()[1]
    assert resident_kib()[1] - start_hwm < 500_000


def _store_file(sandbox: dict[str, Path], store: Path, rel: str) -> bool:
    path = str(sandbox["base"] / rel)
    return path in (str(store), f"{store}-wal", f"{store}-shm", f"{store}-journal")


def _restore(sandbox: dict[str, Path]) -> None:
    from tests.robust.fuzz_support import SENTINELS

    for rel, data in SENTINELS.items():
        path = sandbox["base"] / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

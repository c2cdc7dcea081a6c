"""Issue 21's hostile inputs, each generated here and run in a fresh process
(tests/robust/hostile_child.py) under a 1 GiB address-space cap. For each one:
a one-line error, the child's own peak resident size under 500 MB (VmHWM),
no run past its deadline (the subprocess timeout, and each run's seconds),
and the store unchanged (integrity, counts and every row)."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from jw_cli.app import main
from tests.robust import hostile_server
from tests.robust.bombs import (
    SPARSE,
    gzip_zeros,
    write_jwpub_with_big_contents,
    write_jwpub_zlib_bomb,
    write_zip_with_zeros,
)
from tests.robust.hostile_files import (
    CHAPTER,
    CONTAINER,
    OPF,
    backup_with_manifest,
    deep_json,
    jwpub_with_manifest,
    snapshot,
)

CHILD = Path(__file__).with_name("hostile_child.py")
CAP_BYTES = 1024**3  # the child's address space: imports need ~200 MB of it
PEAK_LIMIT_KIB = 500 * 1000  # 500 MB
GOOD_TEXT = "Gardens need water every morning.\n\nThe soil keeps it for the roots.\n"


#: One BLAS thread in the child: each extra one reserves address space under the cap.
_CHILD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@dataclass(frozen=True)
class Child:
    runs: list[dict[str, Any]]
    peak_kib: int


def run_child(
    tmp_path: Path, runs: list[dict[str, Any]], *, deadline: float, setup: str = ""
) -> Child:
    """Run ``runs`` in one fresh process; fail when it outlives ``deadline`` seconds."""
    spec, report = tmp_path / "spec.json", tmp_path / "report.json"
    spec.write_text(json.dumps({"cap_bytes": CAP_BYTES, "setup": setup, "runs": runs}), "utf-8")
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(CHILD), str(spec), str(report)],
        capture_output=True, text=True, timeout=deadline, env=dict(os.environ) | _CHILD_ENV,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert time.monotonic() - started < deadline
    data = json.loads(report.read_text("utf-8"))
    return Child(data["runs"], data["peak_kib"])


def assert_one_line_errors(child: Child, words: str, *, code: int = 1, seconds: float = 10) -> None:
    """Every run ended in ``error: ...`` naming ``words`` on one line, within ``seconds``."""
    for run in child.runs:
        assert run["error"] is None, run["error"]
        assert run["code"] == code, run
        assert run["out"] == "" and run["err"].startswith("error: "), run
        assert run["err"].count("\n") == 1 and words in run["err"], run["err"]
        assert "Traceback" not in run["err"]
        assert run["seconds"] < seconds, run
    assert child.peak_kib < PEAK_LIMIT_KIB, child.peak_kib


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store holding one text source, written through the CLI (fake embedder)."""
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    path = tmp_path / "store.sqlite"
    (tmp_path / "kept.txt").write_text(GOOD_TEXT, "utf-8")
    assert main(["--store", str(path), "rag", "ingest", "text", str(tmp_path / "kept.txt")]) == 0
    return path


def ingest(store: Path, kind: str, path: Path | str) -> dict[str, Any]:
    return {"argv": ["--store", str(store), "rag", "ingest", kind, str(path)]}


def test_the_harness_sees_a_big_peak_and_caps_the_address_space(tmp_path: Path) -> None:
    runs = [{"python": "data = b'x' * 550_000_000; del data"}, {"python": "b'x' * 2 * 1024**3"}]
    child = run_child(tmp_path, runs, deadline=60)
    assert child.runs[0]["error"] is None and child.peak_kib > PEAK_LIMIT_KIB
    assert child.runs[1]["error"] == "MemoryError: "


def test_an_epub_with_three_1_gib_members(tmp_path: Path, store: Path) -> None:
    members = {"mimetype": b"application/epub+zip", "META-INF/container.xml": CONTAINER,
               "content.opf": OPF, "ch1.xhtml": CHAPTER}  # fmt: skip
    zeros = {f"big{i}.xhtml": 1024 for i in range(3)}
    bomb = write_zip_with_zeros(tmp_path / "bomb.epub", members, zeros)
    assert bomb.stat().st_size < 4 * 1024**2
    before = snapshot(store)
    child = run_child(tmp_path, [ingest(store, "epub", bomb)], deadline=60)
    assert_one_line_errors(child, "would unpack to 3072 MiB")
    assert snapshot(store) == before


def test_epubs_just_under_the_member_ratio(tmp_path: Path, store: Path) -> None:
    """Media of 480 MiB, each member compressed 165 times (under the 200 cap),
    are stored without being unpacked; 70 MiB of such text is refused."""
    images = b'<item id="i0" href="i0.png" media-type="image/png"/>'
    members = {"mimetype": b"application/epub+zip", "META-INF/container.xml": CONTAINER,
               "content.opf": OPF.replace(b"<manifest>", b"<manifest>" + images),
               "ch1.xhtml": CHAPTER}  # fmt: skip
    media = write_zip_with_zeros(tmp_path / "media.epub", members, {"i0.png": 480}, block=SPARSE)
    plain = {**members, "content.opf": OPF}
    text = write_zip_with_zeros(tmp_path / "text.epub", plain, {"x.xhtml": 70}, block=SPARSE)
    assert media.stat().st_size < 4 * 1024**2
    before = snapshot(store)
    runs = [ingest(store, "epub", text), ingest(tmp_path / "other.sqlite", "epub", media)]
    child = run_child(tmp_path, runs, deadline=60)
    assert_one_line_errors(Child(child.runs[:1], child.peak_kib), "its text would unpack to 70 MiB")
    assert child.runs[1]["code"] == 0 and "media/ch1: 1 chunk" in child.runs[1]["out"]
    assert snapshot(store) == before


def test_jwpubs_whose_documents_are_zlib_bombs(tmp_path: Path, store: Path) -> None:
    one = write_jwpub_zlib_bomb(tmp_path / "one.jwpub", 1024)  # one document of 1 GiB
    four = write_jwpub_zlib_bomb(tmp_path / "four.jwpub", 200, documents=4)  # 4 x 200 MiB
    assert one.stat().st_size < 2 * 1024**2 and four.stat().st_size < 2 * 1024**2
    before = snapshot(store)
    child = run_child(
        tmp_path, [ingest(store, "jwpub", one), ingest(store, "jwpub", four)], deadline=60
    )
    assert_one_line_errors(child, "document 1 content inflates more than 200 times its size")
    assert snapshot(store) == before


def test_a_jwpub_whose_contents_unpack_to_240_mib(tmp_path: Path, store: Path) -> None:
    """A genuine publication beside a 240 MiB image: read without holding 'contents'."""
    big = write_jwpub_with_big_contents(tmp_path / "big.jwpub", 240)
    assert big.stat().st_size < 2 * 1024**2
    child = run_child(tmp_path, [ingest(tmp_path / "other.sqlite", "jwpub", big)], deadline=60)
    (run,) = child.runs
    assert run["code"] == 0 and "jwpub:tp:2024:1:0: 1 chunk" in run["out"], run
    assert child.peak_kib < PEAK_LIMIT_KIB, child.peak_kib


KINDS = ("article", "bible", "epub", "pdf", "markdown", "text", "jwpub", "backup")


def test_dev_zero_and_a_fifo_for_every_kind(tmp_path: Path, store: Path) -> None:
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes
    before = snapshot(store)
    runs = [ingest(store, kind, path) for kind in KINDS for path in ("/dev/zero", fifo)]
    child = run_child(tmp_path, runs, deadline=60)
    assert_one_line_errors(child, "is not a regular file (a device, FIFO or socket)", seconds=5)
    assert snapshot(store) == before


def test_deep_json_manifests(tmp_path: Path, store: Path) -> None:
    jwpub = jwpub_with_manifest(tmp_path / "deep.jwpub", deep_json())
    backup = backup_with_manifest(tmp_path / "deep.jwlibrary", deep_json())
    before = snapshot(store)
    child = run_child(
        tmp_path, [ingest(store, "jwpub", jwpub), ingest(store, "backup", backup)], deadline=60
    )
    assert_one_line_errors(child, "manifest.json nests too deeply to read")
    assert snapshot(store) == before


def _pdf(content: bytes) -> bytes:
    """A one-page PDF whose page draws ``content`` (correct offsets and xref)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def test_deep_pdf_arrays(tmp_path: Path, store: Path) -> None:
    depth = 200_000
    deep = tmp_path / "deep.pdf"
    deep.write_bytes(
        _pdf(b"BT /F1 12 Tf 72 720 Td " + b"[" * depth + b"(x)" + b"]" * depth + b" TJ ET")
    )
    fine = tmp_path / "fine.pdf"
    fine.write_bytes(_pdf(b"BT /F1 12 Tf 72 720 Td [(Shallow text)] TJ ET"))
    before = snapshot(store)
    other = tmp_path / "other.sqlite"
    runs = [ingest(store, "pdf", deep), ingest(other, "pdf", fine)]
    deep_run, fine_run = run_child(tmp_path, runs, deadline=60).runs
    assert fine_run["code"] == 0 and "fine: 1 chunk" in fine_run["out"]  # the same PDF, shallow
    child = run_child(tmp_path, [ingest(store, "pdf", deep)], deadline=60)
    assert_one_line_errors(child, f"{deep}: its objects nest too deeply")
    assert snapshot(store) == before


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, http_pages: Callable[[type], str]) -> str:
    """The local server, with a gzip bomb: 1 MiB on the wire, 1 GiB once decoded."""
    monkeypatch.setitem(hostile_server.ENCODED, "/gzip-bomb", ("gzip", gzip_zeros(1024)))
    return http_pages(hostile_server.Handler)


def test_a_gzip_bomb_body_and_an_endless_page(tmp_path: Path, store: Path, server: str) -> None:
    before = snapshot(store)
    child = run_child(tmp_path, [ingest(store, "article", f"{server}/gzip-bomb")], deadline=60)
    assert_one_line_errors(child, "the page unpacks more than 200 times its size")
    setup = "import jw_rag.ingest._source as s; s.FETCH_DEADLINE = 2.0"
    child = run_child(
        tmp_path, [ingest(store, "article", f"{server}/slow")], deadline=30, setup=setup
    )
    assert_one_line_errors(child, "still downloading after 2 s", seconds=6)
    assert snapshot(store) == before


def test_absurd_k_in_bm25_and_hybrid(tmp_path: Path, store: Path) -> None:
    before = snapshot(store)
    search = ["--store", str(store), "rag", "search", "water"]
    huge = [{"argv": [*search, "--mode", mode, "--k", str(10**20)]} for mode in ("bm25", "hybrid")]
    child = run_child(tmp_path, huge, deadline=60)
    assert_one_line_errors(child, "k must be an integer from 0 to 1000", code=2)
    floats = [{"argv": [*search, "--mode", mode, "--k", "1e20"]} for mode in ("bm25", "hybrid")]
    for run in run_child(tmp_path, floats, deadline=60).runs:  # Typer's usage error, exit 2
        assert run["code"] == 2 and run["out"] == "" and "Traceback" not in run["err"]
        assert [line for line in run["err"].splitlines() if "Error" in line] == [
            "Error: Invalid value for '--k' / '-k': Input should be a valid integer, unable to "
            "parse string as an integer"
        ]
    assert snapshot(store) == before


def test_ingest_into_a_damaged_store(tmp_path: Path, store: Path) -> None:
    raw = bytearray(store.read_bytes())
    for offset in range(8192, len(raw), 4096):  # every page but the first two
        raw[offset : offset + 64] = b"\xa5" * 64
    store.write_bytes(bytes(raw))
    digest = hashlib.sha256(store.read_bytes()).hexdigest()
    good = tmp_path / "new.txt"
    good.write_text("A new source about rivers.\n", "utf-8")
    runs = [ingest(store, "text", good), {"argv": ["--store", str(store), "rag", "stats"]}]
    child = run_child(tmp_path, runs, deadline=60)
    assert_one_line_errors(child, "damaged")
    assert hashlib.sha256(store.read_bytes()).hexdigest() == digest


_OPEN = (
    "from jw_rag.embed import FakeEmbedder\n"
    "from jw_rag.store import SQLiteStore\n"
    "store = SQLiteStore({path!r}, FakeEmbedder(dim=64))\n"
)


def test_window_and_k_bounds_in_retrieve(tmp_path: Path, store: Path) -> None:
    before = snapshot(store)
    calls = [
        "retrieve(store, 'water', expand='neighbors', reach=10**9)",
        "retrieve(store, 'water', k=10**20, mode='bm25')",
        "retrieve(store, 'water', k=10**20, mode='hybrid')",
        "store.search('water', 10**20, mode='bm25')",
    ]
    code = _OPEN.format(path=str(store)) + "from jw_rag.retrieve import retrieve\n"
    child = run_child(tmp_path, [{"python": code + call} for call in calls], deadline=60)
    for run in child.runs:
        assert run["error"] is not None and run["error"].startswith("ConfigError: "), run
        assert "from 0 to" in run["error"] and "\n" not in run["error"]
        assert run["seconds"] < 5
    assert child.peak_kib < PEAK_LIMIT_KIB
    assert snapshot(store) == before


def test_nan_vectors_are_refused(tmp_path: Path, store: Path) -> None:
    before = snapshot(store)
    code = _OPEN.format(path=str(store)) + (
        "import numpy as np\n"
        "from jw_rag.chunkers import ParagraphChunker\n"
        "class Nan(FakeEmbedder):\n"
        "    def embed(self, texts):\n"
        "        out = super().embed(texts).copy(); out[-1, 0] = np.nan; return out\n"
        "store = SQLiteStore(store.path, Nan(dim=64))\n"
        "store.replace_source('d', ParagraphChunker().chunk(['Soil.', 'Water.'], 'd'))\n"
    )
    child = run_child(tmp_path, [{"python": code}], deadline=60)
    (run,) = child.runs
    assert run["error"] is not None and run["error"].startswith("EmbeddingError: "), run
    assert "NaN or infinite" in run["error"] and "\n" not in run["error"]
    assert child.peak_kib < PEAK_LIMIT_KIB
    assert snapshot(store) == before


def test_json_output_of_a_store_with_nan_vectors_is_strict_json(
    tmp_path: Path, store: Path
) -> None:
    conn = sqlite3.connect(store)  # as a store written before vectors were checked
    for rowid, blob in conn.execute("SELECT chunk_rowid, vector FROM vectors").fetchall():
        conn.execute("UPDATE vectors SET vector = ? WHERE chunk_rowid = ?",
                     (b"\x00\x00\xc0\x7f" * (len(blob) // 4), rowid))  # fmt: skip
    conn.commit()
    conn.close()
    before = snapshot(store)
    argv = ["--store", str(store), "rag", "search", "water", "--mode", "dense", "--json"]
    child = run_child(tmp_path, [{"argv": argv}], deadline=60)
    (run,) = child.runs
    assert run["code"] == 0, run

    def refuse(constant: str) -> None:
        raise AssertionError(f"bare {constant} in the JSON output")

    hits = json.loads(run["out"], parse_constant=refuse)
    assert hits and hits[0]["score"] is None
    assert child.peak_kib < PEAK_LIMIT_KIB
    assert snapshot(store) == before

"""`jw eval datasets get`: the public sets, checked against pinned SHA-256s,
written whole or not at all, served here by a local HTTP server that mirrors
../shared/bench-data (or a damaged copy of it)."""

from __future__ import annotations

import hashlib
import http.server
import os
import shutil
import socket
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_eval.datasets import load_dataset, public
from jw_eval.datasets.public import PUBLIC_DATASETS, DatasetDownloadError, get_public_dataset

Serve = Callable[[type[http.server.BaseHTTPRequestHandler]], str]


def _mirror(root: Path, served: list[str]) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(root), **kwargs)  # type: ignore[arg-type]

        def do_GET(self) -> None:  # noqa: N802 - the http.server name
            served.append(self.path)
            super().do_GET()

        def log_message(self, *args: object) -> None:
            pass

    return Handler


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _everything(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def test_the_pins_are_the_shared_copies(shared_bench: Path) -> None:
    for files in PUBLIC_DATASETS.values():
        for item in files:
            data = (shared_bench / item.path).read_bytes()
            assert hashlib.sha256(data).hexdigest() == item.sha256, item.path


@pytest.mark.parametrize("name", sorted(PUBLIC_DATASETS))
def test_get_lays_out_what_the_bench_reads(
    name: str,
    shared_bench: Path,
    http_pages: Serve,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    served: list[str] = []
    url = http_pages(_mirror(shared_bench, served))
    dest = tmp_path / "bench-data"
    assert main(["eval", "datasets", "get", name, "--dest", str(dest), "--mirror", url]) == 0
    out = capsys.readouterr().out.splitlines()
    expected = [item.path for item in PUBLIC_DATASETS[name]]
    assert sorted(_files(dest)) == sorted(expected)
    for rel in expected:
        assert (dest / rel).read_bytes() == (shared_bench / rel).read_bytes()
    assert [line.split()[0] for line in out[:-1]] == ["downloaded"] * len(expected)
    assert out[-1].startswith("use: jw eval chunker-bench --dataset ")
    dataset = load_dataset(Path(out[-1].split("--dataset ", 1)[1]))
    assert dataset.queries and dataset.documents
    # Again: every file is present with its pinned checksum, nothing is fetched.
    served.clear()
    assert main(["eval", "datasets", "get", name, "--dest", str(dest), "--mirror", url]) == 0
    assert served == []
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()[:-1]] == [
        "present"
    ] * len(expected)


def _damaged_copy(shared: Path, tmp: Path, rel: str) -> Path:
    root = tmp / "damaged"
    shutil.copytree(shared / "xquad", root / "xquad")
    target = root / rel
    data = bytearray(target.read_bytes())
    data[100] ^= 0x01
    target.write_bytes(bytes(data))
    return root


def test_a_checksum_mismatch_writes_nothing(
    shared_bench: Path, http_pages: Serve, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The first file is right, the second damaged: neither may be left behind.
    url = http_pages(_mirror(_damaged_copy(shared_bench, tmp_path, "xquad/xquad.es.json"), []))
    dest = tmp_path / "out"
    assert main(["eval", "datasets", "get", "xquad", "--dest", str(dest), "--mirror", url]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("error: checksum mismatch for xquad/xquad.es.json from ")
    assert "nothing was written" in captured.err
    assert not dest.exists() or _everything(dest) == []


def test_a_checksum_mismatch_keeps_an_existing_folder_as_it_was(
    shared_bench: Path, http_pages: Serve, tmp_path: Path
) -> None:
    url = http_pages(_mirror(_damaged_copy(shared_bench, tmp_path, "xquad/xquad.es.json"), []))
    dest = tmp_path / "out"
    (dest / "xquad").mkdir(parents=True)
    (dest / "notes.txt").write_text("mine\n")
    before = _files(dest)
    with pytest.raises(DatasetDownloadError, match="checksum mismatch"):
        get_public_dataset("xquad", dest, mirror=url)
    assert _files(dest) == before
    assert _everything(dest) == ["notes.txt", "xquad"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_server_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "out"
    url = f"http://127.0.0.1:{_closed_port()}"
    assert main(["eval", "datasets", "get", "faquad", "--dest", str(dest), "--mirror", url]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"error: cannot download {url}/faquad/dataset.json: ")
    assert "nothing was written" in err
    assert not dest.exists()


def test_a_missing_file_on_the_server_is_one_line(
    http_pages: Serve, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "empty").mkdir()
    url = http_pages(_mirror(tmp_path / "empty", []))
    dest = tmp_path / "out"
    assert main(["eval", "datasets", "get", "faquad", "--dest", str(dest), "--mirror", url]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "HTTP 404" in err
    assert not dest.exists()


def test_existing_files_are_kept_unless_force(
    shared_bench: Path, http_pages: Serve, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served: list[str] = []
    url = http_pages(_mirror(shared_bench, served))
    dest = tmp_path / "out"
    mine = dest / "faquad" / "dataset.json"
    mine.parent.mkdir(parents=True)
    mine.write_text('{"data": [], "version": "mine"}')
    args = ["eval", "datasets", "get", "faquad", "--dest", str(dest), "--mirror", url]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err == (
        f"error: {mine} exists and differs from the pinned faquad file; pass --force to replace it\n"
    )
    assert served == []
    assert mine.read_text() == '{"data": [], "version": "mine"}'
    assert main([*args, "--force"]) == 0
    assert capsys.readouterr().out.startswith(f"replaced {mine} (674,778 bytes)")
    assert mine.read_bytes() == (shared_bench / "faquad" / "dataset.json").read_bytes()


def test_a_body_over_the_cap_is_refused(
    shared_bench: Path, http_pages: Serve, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(public, "MAX_BYTES", 1000)
    url = http_pages(_mirror(shared_bench, []))
    with pytest.raises(DatasetDownloadError, match="sent more than"):
        get_public_dataset("xquad", tmp_path / "out", mirror=url)
    assert not (tmp_path / "out").exists()


def test_chroma_keeps_the_three_corpora_of_the_upstream_table(
    shared_bench: Path, tmp_path: Path
) -> None:
    """Upstream's questions_df.csv also holds two corpora the bench leaves out;
    only the rows of the three it reads are kept, byte for byte."""
    lines = (shared_bench / "chroma" / "questions_df.csv").read_bytes().split(b"\r\n")
    extra = [
        b'What was the revenue?,"[{""content"": ""x"", ""start_index"": 1, ""end_index"": 2}]",finance'
    ]
    upstream = b"\r\n".join(lines[:3] + extra + lines[3:-1] + extra + [lines[-1]])
    sources = {
        item.path: (shared_bench / item.path).read_bytes() for item in PUBLIC_DATASETS["chroma"]
    }
    sources["chroma/questions_df.csv"] = upstream

    def fetch(url: str, timeout: float) -> bytes:
        return sources[url.split("/mirror/", 1)[1]]

    results = get_public_dataset("chroma", tmp_path / "out", mirror="http://x/mirror", fetch=fetch)
    assert [r.status for r in results] == ["downloaded"] * 5
    assert (tmp_path / "out" / "chroma" / "questions_df.csv").read_bytes() == (
        shared_bench / "chroma" / "questions_df.csv"
    ).read_bytes()


def test_concurrent_gets_into_one_folder_agree(
    shared_bench: Path, http_pages: Serve, tmp_path: Path
) -> None:
    url = http_pages(_mirror(shared_bench, []))
    dest = tmp_path / "out"
    errors: list[BaseException] = []

    def run() -> None:
        try:
            get_public_dataset("xquad", dest, mirror=url)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert _everything(dest) == ["xquad", "xquad/xquad.en.json", "xquad/xquad.es.json"]
    for rel in ("xquad/xquad.en.json", "xquad/xquad.es.json"):
        assert (dest / rel).read_bytes() == (shared_bench / rel).read_bytes()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope"], "error: unknown dataset 'nope'; choose one of chroma, faquad, xquad\n"),
        (
            ["xquad", "--mirror", "ftp://host/x"],
            "error: mirror 'ftp://host/x' is not an http(s) URL; give e.g. http://host/bench-data\n",
        ),
        (["xquad", "--timeout", "0"], "error: timeout 0.0 must be a positive number of seconds\n"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    args: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "datasets", "get", *args]) == 2
    assert capsys.readouterr().err == message
    assert _everything(tmp_path) == []


def test_a_file_as_dest_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "f").write_text("x")
    assert main(["eval", "datasets", "get", "xquad", "--dest", str(tmp_path / "f")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_an_empty_answer_is_a_checksum_mismatch(tmp_path: Path) -> None:
    with pytest.raises(DatasetDownloadError, match="checksum mismatch for faquad/dataset.json"):
        get_public_dataset("faquad", tmp_path / "out", fetch=lambda url, timeout: b"")
    assert not (tmp_path / "out").exists()


def test_a_link_in_place_of_a_file_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("keep me")
    target = tmp_path / "out" / "faquad" / "dataset.json"
    target.parent.mkdir(parents=True)
    target.symlink_to(outside)
    with pytest.raises(DatasetDownloadError, match="is not a regular file"):
        get_public_dataset("faquad", tmp_path / "out", force=True, fetch=lambda u, t: b"x")
    assert outside.read_text() == "keep me"


def test_the_upstream_addresses_are_the_authors_repositories() -> None:
    hosts = {
        name: {item.url.split("/")[3] + "/" + item.url.split("/")[4] for item in files}
        for name, files in PUBLIC_DATASETS.items()
    }
    assert hosts == {
        "xquad": {"google-deepmind/xquad"},
        "faquad": {"liafacom/faquad"},
        "chroma": {"brandonstarxel/chunking_evaluation"},
    }
    for files in PUBLIC_DATASETS.values():
        for item in files:
            assert item.url.startswith("https://raw.githubusercontent.com/")
            assert item.url.rsplit("/", 1)[1] == item.path.rsplit("/", 1)[1]
            assert len(item.sha256) == 64 and int(item.sha256, 16) >= 0


def test_a_failed_move_removes_what_was_made(
    shared_bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second file cannot be moved into place: the first, already moved,
    the temporary files and the folders made (above dest too) are removed."""

    def fetch(url: str, timeout: float) -> bytes:
        return (shared_bench / url.split("/m/", 1)[1]).read_bytes()

    real_replace = os.replace
    calls: list[str] = []

    def replace(src: str, dst: str) -> None:
        calls.append(str(dst))
        if len(calls) == 2:
            raise OSError(28, "No space left on device", str(dst))
        real_replace(src, dst)

    monkeypatch.setattr(public.os, "replace", replace)
    with pytest.raises(OSError, match="No space left"):
        get_public_dataset("xquad", tmp_path / "a" / "b", mirror="http://x/m", fetch=fetch)
    assert len(calls) == 2
    assert _everything(tmp_path) == []


def test_dest_whose_parents_are_missing_is_made(shared_bench: Path, tmp_path: Path) -> None:
    def fetch(url: str, timeout: float) -> bytes:
        return (shared_bench / url.split("/m/", 1)[1]).read_bytes()

    results = get_public_dataset("faquad", tmp_path / "a" / "b", mirror="http://x/m", fetch=fetch)
    assert [r.status for r in results] == ["downloaded"]
    assert (tmp_path / "a" / "b" / "faquad" / "dataset.json").is_file()

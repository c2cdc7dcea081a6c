"""``jw rag search --max-parents N``: the cap :func:`jw_rag.retrieve.retrieve`
takes as ``max_parents``, with its check."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_rag.retrieve import retrieve
from jw_rag.store import open_store

QUERY = "alma muere"


@pytest.fixture
def store(tmp_path: Path, corpus: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = str(tmp_path / "s.sqlite")
    argv = ["rag", "ingest", "article", str(corpus / "es"), "--store", path]
    assert main([*argv, "--chunker", "parent-child:parent=paragraph"]) == 0
    capsys.readouterr()
    return path


def _ids(capsys: pytest.CaptureFixture[str], store: str, *extra: str) -> list[str]:
    argv = ["rag", "search", QUERY, "-k", "5", "--expand", "parent", "--store", store, "--json"]
    assert main([*argv, *extra]) == 0
    return [hit["id"] for hit in json.loads(capsys.readouterr().out)]


@pytest.mark.parametrize("cap", [1, 2, 3])
def test_max_parents_caps_the_parents_delivered_as_the_api_does(
    capsys: pytest.CaptureFixture[str], store: str, cap: int
) -> None:
    got = _ids(capsys, store, "--max-parents", str(cap))
    with closing(open_store(store, read_only=True)) as st:
        want = [h.chunk.id for h in retrieve(st, QUERY, 5, expand="parent", max_parents=cap)]
    assert got == want and len(got) == cap


def test_the_default_is_the_api_default_and_a_huge_cap_is_no_cap(
    capsys: pytest.CaptureFixture[str], store: str
) -> None:
    default = _ids(capsys, store)
    assert len(default) == 5
    assert _ids(capsys, store, "--max-parents", "5") == default
    assert _ids(capsys, store, "--max-parents", str(10**30)) == default


@pytest.mark.parametrize("value", ["0", "-1", "two", ""])
def test_a_cap_below_one_or_not_a_number_is_refused_as_k_is(
    capsys: pytest.CaptureFixture[str], store: str, value: str
) -> None:
    code = main(["rag", "search", QUERY, "--expand", "parent", "--max-parents", value,
                 "--store", store])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "Invalid value for '--max-parents'" in err and "Traceback" not in err

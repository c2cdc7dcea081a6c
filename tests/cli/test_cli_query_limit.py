"""``jw rag search`` refuses a query over jw_rag.limits.MAX_QUERY_CHARS in one
line naming the limit and the fix, and searches one at the limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_cli.app import main
from jw_rag.limits import MAX_QUERY_CHARS


def test_a_query_over_the_limit_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("Lamps need oil.\n\nBread and wine.\n", encoding="utf-8")
    store = str(tmp_path / "s.sqlite")
    assert main(["--store", store, "rag", "ingest", "text", str(tmp_path / "notes.txt")]) == 0
    capsys.readouterr()
    at_limit = ("oil lamps " * MAX_QUERY_CHARS)[:MAX_QUERY_CHARS]
    assert main(["--store", store, "rag", "search", at_limit, "--json", "-k", "1"]) == 0
    assert '"source_id":"notes"' in capsys.readouterr().out.replace(" ", "")
    code = main(["--store", store, "rag", "search", at_limit + "s", "--json"])
    assert code == 2  # a bad argument
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: the query is ")
    assert f"over the limit of {MAX_QUERY_CHARS:,}" in err and "key sentences" in err

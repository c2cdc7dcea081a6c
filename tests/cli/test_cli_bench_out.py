"""`jw eval chunker-bench --out` a report cannot be written to is refused before the
run, in one line naming the fix, so no run's report is lost at its end."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_cli.app import main
from jw_eval.bench import write_report
from jw_eval.bench.output import check_report_path
from jw_rag.errors import ConfigError


def _bench_out(out: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    ran: list[object] = []
    monkeypatch.setattr("jw_eval.bench.run_chunker_bench", lambda *a, **k: ran.append(a))
    code = main(["eval", "chunker-bench", "--out", str(out)])
    return code, capsys.readouterr().err, ran


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("folder", "is a folder: give a file path, such as {out}/report.md"),
        # the chart goes beside the report as <stem>.svg: it replaced the report
        ("r.svg", "and would replace it; give the report another name, such as {tmp}/r.md"),
        ("a-file/r.md", "{tmp}/a-file is a file, not a folder; give a path in a folder"),
    ],
)
def test_an_out_path_that_cannot_hold_the_report_is_refused_before_the_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    message: str,
) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "a-file").write_text("kept", "utf-8")
    out = tmp_path / name
    code, err, ran = _bench_out(out, monkeypatch, capsys)
    assert code != 0 and ran == [] and err.count("\n") == 1, err
    assert message.format(out=out, tmp=tmp_path) in err, err
    assert (tmp_path / "a-file").read_text("utf-8") == "kept"


def test_write_report_never_replaces_the_report_with_its_chart(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="would replace it"):
        write_report({"variants": []}, "json", tmp_path / "r.svg")
    assert list(tmp_path.iterdir()) == []
    check_report_path(tmp_path / "new" / "deeper" / "r.md")  # folders to be made are fine
    check_report_path(None)

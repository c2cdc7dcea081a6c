"""``jw-mcp`` options: fetch limits, call deadlines and workers from flags or
``JW_MCP_*`` variables (the flag wins); a bad value exits with one line naming
the flag or variable and what it takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_mcp.command import parse_args
from jw_mcp.options import CALL_TIMEOUT, FETCH_TIMEOUT, READ_TIMEOUT, WORKERS


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as info:
        parse_args(list(argv))
    assert info.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_defaults_then_variables_then_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JW_MCP_ROOTS", raising=False)
    plain = parse_args(["--root", str(tmp_path)])
    assert (plain.fetch_max_bytes, plain.fetch_timeout, plain.call_timeout) == (
        None, FETCH_TIMEOUT, CALL_TIMEOUT)  # fmt: skip
    assert (plain.read_timeout, plain.workers, plain.allow_private_urls) == (
        READ_TIMEOUT, WORKERS, False)  # fmt: skip
    monkeypatch.setenv("JW_MCP_FETCH_MAX_BYTES", "10M")
    monkeypatch.setenv("JW_MCP_FETCH_TIMEOUT", "5")
    monkeypatch.setenv("JW_MCP_WORKERS", "2")
    from_env = parse_args(["--root", str(tmp_path)])
    assert (from_env.fetch_max_bytes, from_env.fetch_timeout, from_env.workers) == (
        10 * 1024 * 1024, 5.0, 2)  # fmt: skip
    flags = parse_args(["--root", str(tmp_path), "--fetch-max-bytes", "65536",
                        "--fetch-timeout", "0.5", "--call-timeout", "3", "--read-timeout", "2",
                        "--allow-private-urls"])  # fmt: skip
    assert (flags.fetch_max_bytes, flags.fetch_timeout, flags.call_timeout) == (65536, 0.5, 3.0)
    assert (flags.read_timeout, flags.workers, flags.allow_private_urls) == (2.0, 2, True)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--fetch-max-bytes", "lots"], "--fetch-max-bytes 'lots' is not a size: give bytes"),
        (["--fetch-max-bytes", "0"], "--fetch-max-bytes '0' is out of range"),
        (["--fetch-timeout", "soon"], "--fetch-timeout 'soon' is not a number: give seconds"),
        (["--call-timeout", "-1"], "--call-timeout '-1' is out of range: give seconds above 0"),
        (["--read-timeout", "nan"], "--read-timeout 'nan' is out of range"),
        (["--workers", "0"], "--workers '0' is not a thread count: give a whole number 1 to 64"),
        (["--fetch-timeout", "90", "--call-timeout", "30"],
         "the fetch timeout (90 s) is longer than the call timeout (30 s): lower --fetch-timeout"),
    ],
)  # fmt: skip
def test_bad_values_exit_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], words: str
) -> None:
    assert words in _error(capsys, "--root", str(tmp_path), *argv)


def test_a_bad_variable_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JW_MCP_CALL_TIMEOUT", "forever")
    line = _error(capsys, "--root", str(tmp_path))
    assert "$JW_MCP_CALL_TIMEOUT 'forever' is not a number" in line


def test_help_lists_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    out = capsys.readouterr().out
    for flag in (
        "--fetch-max-bytes N",
        "--fetch-timeout SECONDS",
        "--call-timeout SECONDS",
        "--read-timeout SECONDS",
        "--workers N",
        "--allow-private-urls",
        "--root DIR",
    ):
        assert flag in out, flag  # fmt: skip
    for var in ("$JW_MCP_FETCH_MAX_BYTES", "$JW_MCP_CALL_TIMEOUT", "$JW_MCP_WORKERS"):
        assert var in " ".join(out.split()), var


def test_a_fetch_timeout_not_given_stays_within_the_call_timeout(tmp_path: Path) -> None:
    options = parse_args(["--root", str(tmp_path), "--call-timeout", "30"])
    assert (options.call_timeout, options.fetch_timeout) == (30.0, 30.0)
    options = parse_args(["--root", str(tmp_path), "--call-timeout", "300"])
    assert (options.call_timeout, options.fetch_timeout) == (300.0, FETCH_TIMEOUT)

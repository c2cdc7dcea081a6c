"""benchmarks/anchor_noise.py on hand-built shapes-table reports (no bench run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.benchmark_scripts import load_script


def _module() -> Any:
    return load_script("anchor_noise")


def _report(scores: dict[str, list[float]], peers: list[str]) -> dict[str, Any]:
    """A chunker-bench report with one language and one budget (2,000 characters)."""
    return {
        "config": {"peers": peers, "budgets": [2000], "shipped_default": "ours"},
        "variants": [
            {
                "name": name,
                "queries": [
                    {"id": f"q{i}", "language": "en", "ndcg@2000c": v} for i, v in enumerate(values)
                ],
            }
            for name, values in scores.items()
        ],
    }


ALPHA = [0.9, 0.7, 0.5, 0.3]  # scores above beta on every question
BETA = [0.8, 0.6, 0.4, 0.2]
OURS = [v + 0.1 for v in ALPHA]  # above both peers on every question


def _folder(tmp_path: Path) -> Path:
    as_is = _report({"ours": OURS, "alpha": ALPHA, "beta": BETA}, ["alpha", "beta"])
    wrapped = _report(
        {"ours": OURS, "alpha": ALPHA, "beta": [v + 0.05 for v in BETA]}, ["alpha", "beta"]
    )
    (tmp_path / "argument.none.json").write_text(json.dumps(as_is), "utf-8")
    (tmp_path / "argument.wrapped.json").write_text(json.dumps(wrapped), "utf-8")
    return tmp_path


GOLDEN = """\
## The best peer per cell, its winner's optimism, and our lift

Optimism in NDCG points and as the anchor's relative inflation; lift of ours over the best peer \
as measured and over the best peer less its optimism.

| set | shape | lang | budget | best peer | NDCG | optimism (pts) | inflation \
| lift as measured | lift less optimism |
|---|---|---|---:|---|---:|---:|---:|---:|---:|
| argument | none | en | 2000 | alpha | 0.600 | 0.0 | +0.0% | +16.7% | +16.7% |
| argument | wrapped | en | 2000 | alpha | 0.600 | 0.0 | +0.0% | +16.7% | +16.7% |
| **argument** (2 cells, mean) | | | | | | 0.0 | +0.0% | +16.7% | +16.7% |

Under the best peer as measured: 0 of 2 cells; after its optimism is taken off: 0.

## A system with a true margin over every cell's best peer

Its mean is the cell's best peer's times (1 + margin), its question-level noise ours' against \
that peer; the questions drawn again.

| true margin | P(at or above the best peer in all 2 cells) | mean cells under |
|---:|---:|---:|
| +0% | 1.000 | 0.0 |
| +5% | 1.000 | 0.0 |
| +10% | 1.000 | 0.0 |
| +15% | 1.000 | 0.0 |
| +20% | 1.000 | 0.0 |

At margin 0 each cell alone is passed with probability 1.00 (median; range 1.00–1.00).

## Same words, other line breaks: NDCG change from the set as it is (points)

### wrapped

| set | lang | budget | alpha | beta | ours | best peer |
|---|---|---:|---:|---:|---:|---:|
| argument | en | 2000 | +0.0 | +5.0 | +0.0 | +0.0 |

A peer moves by 2.5 points on average (median 2.5, largest 5.0; 2 peer-cells).

No `joined` report beside an as-is one.
"""


def _run(module: Any, argv: list[str]) -> str:
    out: list[str] = []
    assert module.main(argv, write=out.append) == 0
    return "".join(out)


def test_two_peers_four_questions_give_the_hand_computed_report(tmp_path: Path) -> None:
    # alpha beats beta on every question, so it wins every draw: no optimism; ours is
    # alpha + 0.1 on every question, so the system built from its noise is alpha itself
    # and never falls under the best peer; alpha is unchanged by the wrapping.
    m = _module()
    assert _run(m, ["--json-dir", str(_folder(tmp_path)), "--boot", "500"]) == GOLDEN


def test_the_same_seed_gives_the_same_report_and_a_bigger_folder_leaves_a_cell_alone(
    tmp_path: Path,
) -> None:
    m = _module()
    folder = _folder(tmp_path)
    noisy = _report(
        {"ours": [1, 0, 0.5, 0.5], "alpha": [1, 0, 1, 0], "beta": [0, 1, 0, 1]}, ["alpha", "beta"]
    )
    (folder / "argument.none.json").write_text(json.dumps(noisy), "utf-8")
    first = _run(m, ["--json-dir", str(folder), "--seed", "7"])
    assert first == _run(m, ["--json-dir", str(folder), "--seed", "7"])
    assert first != _run(m, ["--json-dir", str(folder), "--seed", "8"])
    (folder / "other.none.json").write_text(json.dumps(noisy), "utf-8")
    more = _run(m, ["--json-dir", str(folder), "--seed", "7"])
    row = next(line for line in first.splitlines() if line.startswith("| argument | none |"))
    assert row in more.splitlines()


def test_two_peers_that_take_turns_have_the_optimism_the_binomial_gives() -> None:
    # alpha scores 1 on questions 0 and 2, beta on 1 and 3: both mean 0.5, and the winner of a
    # draw of four questions scores max(K, 4 - K) / 4 with K ~ Bin(4, 1/2), 11/16 on average.
    m = _module()
    peers = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    means = m.resample_means(peers, 40_000, np.random.default_rng(0))
    assert m.winner_optimism(means) == pytest.approx(11 / 16 - 0.5, abs=0.005)


def test_many_questions_are_resampled_in_bounded_blocks() -> None:
    m = _module()
    rows = np.vstack([np.full(300_000, 0.25), np.linspace(0, 1, 300_000)])
    means = m.resample_means(rows, 7, np.random.default_rng(0))
    assert means.shape == (2, 7)
    assert np.allclose(means[0], 0.25)
    assert np.all(np.abs(means[1] - 0.5) < 0.01)


def _error(capsys: pytest.CaptureFixture[str], module: Any, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        module.main(argv, write=lambda _: pytest.fail("printed a report"))
    assert exit_.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    return last


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (None, None, "holds no SET.SHAPE.json reports: run benchmarks/shapes_table.py"),
        ("argument.none.json", "{not json", "not a readable JSON report"),
        ("argument.none.json", "[1, 2]", "not a chunker-bench report with per-question scores"),
        ("argument.none.json", json.dumps({"config": {}}), "bad or missing 'peers'"),
        ("notes.json", "{}", "expected a name SET.SHAPE.json"),
        (
            "argument.none.json",
            json.dumps(_report({"ours": [0.5], "alpha": [0.4]}, [])),
            "the run had no peers; rerun shapes_table.py without --peers none",
        ),
        (
            "argument.none.json",
            json.dumps(_report({"ours": [0.5], "alpha": [float("nan")]}, ["alpha"])),
            "a ndcg@2000c score is not a number",
        ),
        (
            "argument.none.json",
            json.dumps(_report({"ours": [0.5, 0.4], "alpha": [0.4, 0.3]}, ["alpha"])).replace(
                '"q1"', '"q0"'
            ),
            "question 'q0' appears twice",
        ),
        (
            "argument.none.json",
            json.dumps(_report({"ours": [0.5, 0.4], "alpha": [0.4]}, ["alpha"])),
            "'alpha' and 'ours' answered different en questions",
        ),
    ],
)
def test_an_empty_or_malformed_folder_is_a_one_line_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str | None,
    content: str | None,
    expected: str,
) -> None:
    m = _module()
    if name is not None:
        (tmp_path / name).write_text(content or "", "utf-8")
    line = _error(capsys, m, ["--json-dir", str(tmp_path)])
    assert expected in line and str(tmp_path) in line


def test_a_missing_folder_or_variant_says_what_to_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    m = _module()
    line = _error(capsys, m, ["--json-dir", str(tmp_path / "nowhere")])
    assert "is not a folder: give --json-dir" in line
    line = _error(capsys, m, ["--json-dir", str(_folder(tmp_path)), "--ours", "paragraph"])
    assert "no variant 'paragraph' (has alpha, beta, ours); pass --ours" in line
    line = _error(capsys, m, ["--json-dir", str(tmp_path), "--boot", "0"])
    assert "must be at least 1" in line


def test_shapes_of_one_set_with_other_questions_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the shapes of a set are resampled together, so they must hold the same questions
    m = _module()
    folder = _folder(tmp_path)
    fewer = _report({"ours": OURS[:3], "alpha": ALPHA[:3], "beta": BETA[:3]}, ["alpha", "beta"])
    (folder / "argument.joined.json").write_text(json.dumps(fewer), "utf-8")
    line = _error(capsys, m, ["--json-dir", str(folder)])
    assert "argument.joined.json: other en questions than argument.none.json" in line

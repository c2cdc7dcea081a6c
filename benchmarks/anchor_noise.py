"""How much the best-of-seven anchor of the shapes table flatters itself.

The shapes table (``benchmarks/shapes_table.py``) and ``jw eval chunker-bench``
measure our lift over the best of seven peers, picked per cell (set, shape,
language and budget) on the same 40 questions it is scored on. Picking the
maximum of seven noisy means on the questions that score it makes the anchor
look better than the peer would on new questions. This script reads the JSON
reports a shapes run kept and prints three Markdown sections:

1. Per cell: the best peer, its NDCG, its **winner's optimism** and our lift over
   it, as measured and after the optimism is taken off the peer.

   Winner's optimism. Resample the cell's questions with replacement ``--boot``
   times (the sample standing in for the population). In resample ``b`` let
   ``m*_jb`` be peer ``j``'s mean NDCG and ``w_b`` the peer with the highest
   ``m*_jb``; let ``a_j`` be peer ``j``'s average of ``m*_jb`` over all the
   resamples. The optimism is the average over ``b`` of ``m*_{w_b,b} - a_{w_b}``:
   how far the peer that wins a draw of questions scores, on that draw, above
   what it scores on average. It is 0 when one peer wins every draw (for
   instance when it scores highest on every question), and grows when several
   peers are close. (``a_j`` converges to the sample mean of peer ``j``; using
   it instead cancels most of the resampling noise.) The anchor is shown in
   points of NDCG and as the relative inflation ``best / (best - optimism) - 1``.

2. A system whose true mean is every cell's best peer times ``1 + margin``, with
   the question-level noise our default really has against that peer (its
   per-question scores shifted by a constant to that peer's mean): the
   probability that it comes out at or above the best peer in every cell when
   the questions are drawn again, and how many cells it misses on average.
   The questions of one set and language are resampled jointly across shapes
   and budgets, as they are the same questions.

3. Each peer's NDCG change between the set as it is and ``wrapped`` / ``joined``
   (the same words with other line breaks), with ours and the best peer's.

    uv run --frozen python benchmarks/shapes_table.py --sets argument,argument-long \\
        --shapes none,joined,sentences,wrapped,long,rows --ours paragraph --json-dir DIR
    uv run --frozen python benchmarks/anchor_noise.py --json-dir DIR

The output depends only on the reports, ``--boot`` and ``--seed``: each set
and language draws from its own seeded stream.
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

MARGINS = (0.0, 0.05, 0.10, 0.15, 0.20)
SAME_WORDS = ("wrapped", "joined")
SHAPE_ORDER = ("none", "joined", "sentences", "wrapped", "long", "rows")
TIE = 1e-12  # a system equal to the best peer counts as at or above it


class ReportError(ValueError):
    """A report folder or file that cannot be read; the message says how to fix it."""


class Cell(NamedTuple):
    set: str
    shape: str
    language: str
    budget: int


@dataclass(frozen=True)
class Scores:
    """Per-question NDCG of one cell: ``peer`` is peers x questions, in ``ids`` order."""

    peers: tuple[str, ...]
    peer: np.ndarray
    ours: np.ndarray
    ids: tuple[str, ...]


def _per_question(
    path: Path, variant: dict[str, Any], metric: str, language: str
) -> dict[str, float]:
    out: dict[str, float] = {}
    for query in variant["queries"]:
        if query["language"] == language:
            if query["id"] in out:
                raise ReportError(
                    f"{path}: question {query['id']!r} appears twice in {variant['name']!r}"
                )
            out[query["id"]] = float(query[metric])
    return out


def _read_report(path: Path, ours: str | None) -> dict[Cell, Scores]:
    if path.stem.count(".") < 1:
        raise ReportError(f"{path}: expected a name SET.SHAPE.json as shapes_table.py writes")
    name, shape = path.stem.rsplit(".", 1)
    try:
        report = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReportError(f"{path}: not a readable JSON report ({exc})") from None
    try:
        config = report["config"]
        peers = tuple(config["peers"])
        by_name = {v["name"]: v for v in report["variants"]}
        ours = ours or config.get("shipped_default")
        if not peers:
            raise ReportError(
                f"{path}: the run had no peers; rerun shapes_table.py without --peers none"
            )
        if not ours or ours not in by_name:
            raise ReportError(
                f"{path}: no variant {ours!r} (has {', '.join(sorted(by_name))}); "
                "pass --ours with one of them"
            )
        missing = [p for p in peers if p not in by_name]
        if missing:
            raise ReportError(f"{path}: peer {missing[0]!r} is listed but has no scores")
        cells: dict[Cell, Scores] = {}
        languages = sorted({q["language"] for q in by_name[ours]["queries"]})
        for budget in config["budgets"]:
            metric = f"ndcg@{int(budget)}c"
            for language in languages:
                own = _per_question(path, by_name[ours], metric, language)
                ids = sorted(own)
                rows = []
                for peer in peers:
                    theirs = _per_question(path, by_name[peer], metric, language)
                    if sorted(theirs) != ids:
                        raise ReportError(
                            f"{path}: {peer!r} and {ours!r} answered different {language} questions"
                        )
                    rows.append([theirs[i] for i in ids])
                scores = Scores(
                    peers,
                    np.array(rows, dtype=float),
                    np.array([own[i] for i in ids], dtype=float),
                    tuple(ids),
                )
                if not (np.isfinite(scores.peer).all() and np.isfinite(scores.ours).all()):
                    raise ReportError(f"{path}: a {metric} score is not a number; rerun the bench")
                cells[Cell(name, shape, language, int(budget))] = scores
    except ReportError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ReportError(
            f"{path}: not a chunker-bench report with per-question scores (bad or missing {exc}); "
            "write it again with shapes_table.py --json-dir"
        ) from None
    return cells


def load(folder: Path, ours: str | None = None) -> dict[Cell, Scores]:
    """Every cell of every ``SET.SHAPE.json`` report in ``folder``.

    ``ours`` is the variant compared with the peers; ``None`` takes each
    report's shipped default. Raises ``ReportError`` with a one-line reason.
    """
    if not folder.is_dir():
        raise ReportError(
            f"{folder} is not a folder: give --json-dir the folder shapes_table.py wrote"
        )
    paths = sorted(folder.glob("*.json"))
    if not paths:
        raise ReportError(
            f"{folder} holds no SET.SHAPE.json reports: run benchmarks/shapes_table.py "
            f"--json-dir {folder} first"
        )
    cells: dict[Cell, Scores] = {}
    for path in paths:
        cells.update(_read_report(path, ours))
    if not cells:
        raise ReportError(f"{folder}: the reports hold no questions")
    for cell, scores in cells.items():
        if scores.ours.size == 0:
            raise ReportError(f"{cell.set}.{cell.shape}.json: no {cell.language} questions")
    return cells


def _order(cell: Cell) -> tuple[Any, ...]:
    shape = SHAPE_ORDER.index(cell.shape) if cell.shape in SHAPE_ORDER else len(SHAPE_ORDER)
    return (cell.set, shape, cell.shape, cell.language, cell.budget)


def resample_means(rows: np.ndarray, boot: int, rng: np.random.Generator) -> np.ndarray:
    """Means of each row over ``boot`` resamples of its columns (rows x boot).

    All rows see the same resampled questions. Draws question counts in blocks,
    so memory stays near a million counts however many questions there are.
    """
    n = rows.shape[1]
    block = max(1, 1_000_000 // n)
    out = np.empty((rows.shape[0], boot))
    uniform = np.full(n, 1.0 / n)
    for start in range(0, boot, block):
        size = min(block, boot - start)
        counts = rng.multinomial(n, uniform, size=size)
        out[:, start : start + size] = rows @ counts.T / n
    return out


def winner_optimism(peer_means: np.ndarray) -> float:
    """The winner's optimism of resampled peer means (peers x resamples); see the module doc."""
    winners = peer_means.argmax(axis=0)
    average = peer_means.mean(axis=1)
    won = peer_means[winners, np.arange(peer_means.shape[1])]
    return float(np.mean(won - average[winners]))


@dataclass(frozen=True)
class CellResult:
    best_peer: str
    best: float
    optimism: float
    lift: float  # ours over the best peer as measured
    fair_lift: float  # ours over the best peer less its optimism
    passes: dict[float, np.ndarray]  # per margin: at or above the best peer, per resample


def _lift(ours: float, peer: float) -> float:
    return ours / peer - 1 if peer > 0 else float("nan")


def analyse(cells: dict[Cell, Scores], boot: int, seed: int) -> dict[Cell, CellResult]:
    """Sections 1 and 2 for every cell, one seeded stream per set and language."""
    results: dict[Cell, CellResult] = {}
    groups = sorted({(c.set, c.language) for c in cells})
    for set_name, language in groups:
        members = sorted(
            (c for c in cells if (c.set, c.language) == (set_name, language)), key=_order
        )
        odd = next((c for c in members if cells[c].ids != cells[members[0]].ids), None)
        if odd is not None:
            raise ReportError(
                f"{set_name}.{odd.shape}.json: other {language} questions than "
                f"{set_name}.{members[0].shape}.json; keep one run's reports in the folder"
            )
        rows = np.vstack([np.vstack([cells[c].peer, cells[c].ours]) for c in members])
        rng = np.random.default_rng([seed, zlib.crc32(f"{set_name}\0{language}".encode())])
        means = resample_means(rows, boot, rng)
        at = 0
        for cell in members:
            scores = cells[cell]
            k = len(scores.peers)
            peer_means, ours_means = means[at : at + k], means[at + k]
            at += k + 1
            observed = scores.peer.mean(axis=1)
            j = int(np.argmax(observed))
            optimism = winner_optimism(peer_means)
            # the system: ours' question-level noise around the best peer's mean
            system = ours_means - scores.ours.mean() + observed[j]
            best_drawn = peer_means.max(axis=0)
            results[cell] = CellResult(
                best_peer=scores.peers[j],
                best=float(observed[j]),
                optimism=optimism,
                lift=_lift(scores.ours.mean(), observed[j]),
                fair_lift=_lift(scores.ours.mean(), observed[j] - optimism),
                passes={m: system * (1 + m) >= best_drawn - TIE for m in MARGINS},
            )
    return results


def _num(value: float, digits: int = 1, sign: bool = True) -> str:
    """Round first so that -0.04 prints as +0.0."""
    rounded = round(value, digits) + 0.0
    return f"{rounded:+.{digits}f}" if sign else f"{rounded:.{digits}f}"


def _pct(value: float) -> str:
    return _num(100 * value) + "%"


def anchor_section(cells: Sequence[Cell], results: dict[Cell, CellResult]) -> list[str]:
    out = [
        "## The best peer per cell, its winner's optimism, and our lift\n",
        "Optimism in NDCG points and as the anchor's relative inflation; lift of "
        "ours over the best peer as measured and over the best peer less its optimism.\n",
        "| set | shape | lang | budget | best peer | NDCG | optimism (pts) | inflation "
        "| lift as measured | lift less optimism |",
        "|---|---|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for c in cells:
        r = results[c]
        inflation = _lift(r.best, r.best - r.optimism)
        out.append(
            f"| {c.set} | {c.shape} | {c.language} | {c.budget} | {r.best_peer} | {r.best:.3f} "
            f"| {_num(100 * r.optimism, sign=False)} | {_pct(inflation)} | {_pct(r.lift)} "
            f"| {_pct(r.fair_lift)} |"
        )
    pools = [(s, [c for c in cells if c.set == s]) for s in dict.fromkeys(c.set for c in cells)]
    if len(pools) > 1:
        pools.append(("all", list(cells)))
    for label, members in pools:
        rs = [results[c] for c in members]
        out.append(
            f"| **{label}** ({len(rs)} cells, mean) | | | | | "
            f"| {_num(100 * np.mean([r.optimism for r in rs]), sign=False)} "
            f"| {_pct(float(np.mean([_lift(r.best, r.best - r.optimism) for r in rs])))} "
            f"| {_pct(float(np.mean([r.lift for r in rs])))} "
            f"| {_pct(float(np.mean([r.fair_lift for r in rs])))} |"
        )
    under = [c for c in cells if results[c].lift < 0]
    still = [c for c in under if results[c].fair_lift < 0]
    out.append("")
    out.append(
        f"Under the best peer as measured: {len(under)} of {len(cells)} cells; "
        f"after its optimism is taken off: {len(still)}"
        + (
            ": " + ", ".join(f"{c.set} {c.shape} {c.language} {c.budget}" for c in still)
            if still
            else ""
        )
        + ".\n"
    )
    return out


def pass_section(cells: Sequence[Cell], results: dict[Cell, CellResult]) -> list[str]:
    out = [
        "## A system with a true margin over every cell's best peer\n",
        "Its mean is the cell's best peer's times (1 + margin), its question-level noise "
        "ours' against that peer; the questions drawn again.\n",
        f"| true margin | P(at or above the best peer in all {len(cells)} cells) "
        "| mean cells under |",
        "|---:|---:|---:|",
    ]
    for m in MARGINS:
        passed = np.vstack([results[c].passes[m] for c in cells])
        out.append(
            f"| +{100 * m:.0f}% | {passed.all(axis=0).mean():.3f} "
            f"| {(~passed).sum(axis=0).mean():.1f} |"
        )
    alone = [float(results[c].passes[0.0].mean()) for c in cells]
    out.append("")
    out.append(
        f"At margin 0 each cell alone is passed with probability {np.median(alone):.2f} "
        f"(median; range {min(alone):.2f}–{max(alone):.2f}).\n"
    )
    return out


def same_words_section(cells: dict[Cell, Scores]) -> list[str]:
    out = ["## Same words, other line breaks: NDCG change from the set as it is (points)\n"]
    for shape in SAME_WORDS:
        pairs = [
            (c, c._replace(shape=shape))
            for c in sorted(cells, key=_order)
            if c.shape == "none" and c._replace(shape=shape) in cells
        ]
        if not pairs:
            out.append(f"No `{shape}` report beside an as-is one.\n")
            continue
        peers = cells[pairs[0][0]].peers
        out += [
            f"### {shape}\n",
            "| set | lang | budget | " + " | ".join(peers) + " | ours | best peer |",
            "|---|---|---:|" + "---:|" * (len(peers) + 2),
        ]
        changes: list[float] = []
        for before, after in pairs:
            a, b = cells[before], cells[after]
            means_a = dict(zip(a.peers, a.peer.mean(axis=1), strict=True))
            means_b = dict(zip(b.peers, b.peer.mean(axis=1), strict=True))
            row = []
            for p in peers:
                if p in means_a and p in means_b:
                    changes.append(abs(100 * (means_b[p] - means_a[p])))
                    row.append(_num(100 * (means_b[p] - means_a[p])))
                else:
                    row.append("–")
            row.append(_num(100 * (b.ours.mean() - a.ours.mean())))
            row.append(_num(100 * (max(means_b.values()) - max(means_a.values()))))
            out.append(
                f"| {before.set} | {before.language} | {before.budget} | " + " | ".join(row) + " |"
            )
        out.append("")
        out.append(
            f"A peer moves by {np.mean(changes):.1f} points on average (median "
            f"{np.median(changes):.1f}, largest {max(changes):.1f}; {len(changes)} peer-cells).\n"
        )
    return out


def report(cells: dict[Cell, Scores], boot: int, seed: int) -> str:
    """The whole Markdown report."""
    order = sorted(cells, key=_order)
    results = analyse(cells, boot, seed)
    lines = anchor_section(order, results) + pass_section(order, results)
    lines += same_words_section(cells)
    return "\n".join(lines)


def _at_least(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = int(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value

    return parse


_positive, _natural = _at_least(1), _at_least(0)


def main(argv: list[str] | None = None, write: Callable[[str], Any] = sys.stdout.write) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--json-dir", type=Path, required=True, help="the folder shapes_table.py --json-dir wrote"
    )
    parser.add_argument(
        "--ours", default=None, help="our variant (default: each report's shipped default)"
    )
    parser.add_argument("--boot", type=_positive, default=2000, help="bootstrap resamples")
    parser.add_argument("--seed", type=_natural, default=0)
    args = parser.parse_args(argv)
    try:
        text = report(load(args.json_dir, args.ours), args.boot, args.seed)
    except ReportError as exc:
        parser.error(str(exc))
    write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

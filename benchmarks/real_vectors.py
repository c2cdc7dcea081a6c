"""Real embeddings for the store benchmarks, and a larger set grown from them.

``real_set`` embeds every paragraph and every sentence of the shared sets
(../shared/bench-data: XQuAD en/es, FaQuAD pt, Chroma, argument,
argument-long) and every question once with USE, and caches the result to a
file outside the repository (``$JW_HOME/bench-cache`` unless told otherwise).
The questions are held apart: they are the queries, never stored.

``grow`` makes a set of any size from the passage vectors. Each new vector is
a random convex mixture (Dirichlet weights) of a real vector and two of its
ten real nearest neighbours, plus an isotropic jitter whose norm is 0.7 times
that real vector's distance to its own nearest neighbour (an adaptive
kernel: small where real passages are dense, wide where they are sparse),
renormalised. It lies inside the real distribution's local neighbourhoods (a
mixture of nearby passages is what a passage about the same things embeds
to: USE averages token features), but away from every real vector, so the
grown set has no near-duplicates that would make nearest-neighbour search
easy. Each new
vector's text is words drawn from its parents' texts in proportion to their
weights, so BM25 sees the real vocabulary and its statistics.

``neighbour_report`` checks that claim on held-apart data: it grows a set from
half of the real passages and compares, at equal sizes, (a) how far each
held-apart real passage is from its nearest neighbour among grown vectors
versus among real ones (coverage: the grown set sits where real text falls),
(b) how far each grown vector is from its nearest real parent-set vector
versus a held-apart real one (no near-duplicates), and (c) the local
intrinsic dimension (Levina-Bickel estimate over 20 neighbours) of both, which
sets how nearest-neighbour distances shrink as a set grows.

    uv run --frozen python benchmarks/real_vectors.py            # build the cache, print the report
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

__all__ = [
    "Grown",
    "RealSet",
    "default_cache",
    "grow",
    "grown_cached",
    "neighbour_report",
    "real_set",
]

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT.parent / "shared" / "bench-data"
#: The shared sets, as ``(path under bench-data, short name)``.
SETS = (
    ("xquad/xquad.en.json", "xquad-en"),
    ("xquad/xquad.es.json", "xquad-es"),
    ("faquad/dataset.json", "faquad-pt"),
    ("chroma", "chroma"),
    ("argument", "argument"),
    ("argument-long", "argument-long"),
)
#: Neighbours a grown vector's parents are drawn from, parents per vector,
#: Dirichlet concentration of their weights and the jitter's norm (relative
#: to the anchor's nearest-neighbour distance), as calibrated by ``neighbour_report``.
NEIGHBOURS = 10
PARENTS = 3
ALPHA = 1.0
JITTER = 0.7
_WORDS = 24

F32 = npt.NDArray[np.float32]


@dataclass(frozen=True)
class RealSet:
    """Unit passage vectors with their texts, languages and set names; the
    questions' unit vectors with their texts and languages."""

    vectors: F32
    texts: list[str]
    kinds: list[str]
    languages: list[str]
    sets: list[str]
    query_vectors: F32
    queries: list[str]
    query_languages: list[str]


@dataclass(frozen=True)
class Grown:
    """``n`` unit vectors, their texts, languages, and the real passage each
    was grown from (``-1`` for the real passages themselves, which come first)."""

    vectors: F32
    texts: list[str]
    languages: list[str]
    anchors: npt.NDArray[np.int64]


def default_cache() -> Path:
    from jw_rag.config import home_dir

    return home_dir() / "bench-cache"


def _units(
    bench: Path, limit: int | None = None
) -> tuple[list[tuple[str, str, str, str]], list[tuple[str, str]]]:
    """``(text, kind, language, set)`` for every paragraph and sentence, and
    ``(question, language)`` for every question of the shared sets (of the
    first ``limit`` paragraphs and questions of each set, when given)."""
    from jw_core import split_sentences
    from jw_eval.datasets import load_dataset

    units: list[tuple[str, str, str, str]] = []
    questions: list[tuple[str, str]] = []
    for rel, name in SETS:
        ds = load_dataset(bench / rel)
        paragraphs = 0
        for doc in ds.documents.values():
            lang = doc.language or "und"
            for para in doc.paragraphs:
                text = para.text.strip()
                if not text or (limit is not None and paragraphs >= limit):
                    continue
                paragraphs += 1
                units.append((text, "paragraph", lang, name))
                spans = split_sentences(text, lang)
                if len(spans) > 1:
                    units += [(text[a:b], "sentence", lang, name) for a, b in spans]
        questions += [(q.query, q.language or "und") for q in ds.queries[:limit]]
    return units, questions


def _fingerprint(bench: Path) -> str:
    h = hashlib.sha256(b"use-multilingual-v3\n")
    for rel, _ in SETS:
        p = bench / rel
        files = sorted(p.rglob("*")) if p.is_dir() else [p]
        for f in files:
            if f.is_file():
                h.update(f"{f.relative_to(bench)}:{f.stat().st_size}\n".encode())
    return h.hexdigest()[:16]


def _unit_rows(m: npt.NDArray[np.floating]) -> F32:
    m = np.asarray(m, dtype=np.float32)
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def real_set(
    bench: Path = BENCH, cache: Path | None = None, *, limit: int | None = None, log: bool = True
) -> RealSet:
    """The shared sets' passages and questions embedded with USE, read from
    the cache when it holds them (the first call embeds and writes it);
    ``limit`` takes only the first paragraphs and questions of each set."""
    if not bench.is_dir():
        raise FileNotFoundError(f"the shared sets are not at {bench}: give --bench-data")
    folder = cache or default_cache()
    part = "" if limit is None else f"-first{limit}"
    stem = folder / f"store-scale-use-{_fingerprint(bench)}{part}"
    npz, meta = stem.with_suffix(".npz"), stem.with_suffix(".json")
    if npz.is_file() and meta.is_file():
        arrays = np.load(npz)
        info = json.loads(meta.read_text("utf-8"))
        return RealSet(
            arrays["vectors"], info["texts"], info["kinds"], info["languages"], info["sets"],
            arrays["query_vectors"], info["queries"], info["query_languages"],
        )  # fmt: skip
    from jw_rag.embed import get_embedder
    from jw_rag.embed.protocol import embed_queries
    from jw_rag.embed.use import usable_cores

    units, questions = _units(bench, limit)
    embedder = get_embedder("use", threads=usable_cores())
    start = time.perf_counter()
    vectors = _unit_rows(embedder.embed([u[0] for u in units]))
    query_vectors = _unit_rows(embed_queries(embedder, [q for q, _ in questions]))
    if log:
        took = time.perf_counter() - start
        n = len(units) + len(questions)
        print(f"embedded {n:,} texts with USE in {took:.0f} s ({n / took:.0f}/s)", file=sys.stderr)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = stem.with_suffix(".tmp.npz")
    np.savez(tmp, vectors=vectors, query_vectors=query_vectors)
    meta.write_text(
        json.dumps(
            {
                "texts": [u[0] for u in units],
                "kinds": [u[1] for u in units],
                "languages": [u[2] for u in units],
                "sets": [u[3] for u in units],
                "queries": [q for q, _ in questions],
                "query_languages": [lang for _, lang in questions],
            },
            ensure_ascii=False,
        ),
        "utf-8",
    )
    os.replace(tmp, npz)
    return real_set(bench, cache, limit=limit, log=log)


def nearest(
    queries: F32, base: F32, k: int, *, skip_self: bool = False, block: int = 2048
) -> tuple[npt.NDArray[np.int64], F32]:
    """Exact ``k`` nearest rows of ``base`` (by cosine) for each query row:
    ``(indices, cosines)``, best first; ``skip_self`` drops each query's own row
    (queries being ``base`` itself)."""
    extra = 1 if skip_self else 0
    idx = np.empty((len(queries), k), dtype=np.int64)
    sims = np.empty((len(queries), k), dtype=np.float32)
    for start in range(0, len(queries), block):
        s = queries[start : start + block] @ base.T
        if skip_self:
            rows = np.arange(len(s))
            s[rows, start + rows] = -np.inf
        top = np.argpartition(-s, k + extra - 1, axis=1)[:, : k + extra]
        ts = np.take_along_axis(s, top, axis=1)
        order = np.argsort(-ts, axis=1)[:, :k]
        idx[start : start + block] = np.take_along_axis(top, order, axis=1)
        sims[start : start + block] = np.take_along_axis(ts, order, axis=1)
    return idx, sims


def _mix_text(rng: np.random.Generator, texts: Sequence[str], weights: F32) -> str:
    words = [t.split() or ["_"] for t in texts]
    picks = rng.choice(len(texts), size=_WORDS, p=weights / weights.sum())
    return " ".join(words[p][rng.integers(len(words[p]))] for p in picks)


def grow(
    real: RealSet,
    n: int,
    seed: int = 0,
    *,
    base: npt.NDArray[np.int64] | None = None,
    include_real: bool = True,
    neighbours: int = NEIGHBOURS,
    parents: int = PARENTS,
    alpha: float = ALPHA,
    jitter: float = JITTER,
    texts: bool = True,
) -> Grown:
    """``n`` vectors: the real passages of ``base`` (all by default) first when
    ``include_real``, then mixtures grown from them (see the module text)."""
    rng = np.random.default_rng(seed)
    rows = np.arange(len(real.vectors)) if base is None else base
    vecs = real.vectors[rows]
    knn, sims = nearest(vecs, vecs, neighbours, skip_self=True)
    # The local scale: each real vector's distance to its nearest real neighbour.
    scale = np.sqrt(np.maximum(2 - 2 * sims[:, 0], 0)).astype(np.float32)
    keep = min(n, len(rows)) if include_real else 0
    m = n - keep
    anchors = rng.integers(0, len(rows), size=m)
    picks = np.concatenate(
        [
            anchors[:, None],
            np.take_along_axis(
                knn[anchors], rng.random((m, neighbours)).argsort(axis=1)[:, : parents - 1], 1
            ),
        ],
        axis=1,
    )
    weights = rng.dirichlet(np.full(parents, alpha), size=m).astype(np.float32)
    out = np.empty((n, real.vectors.shape[1]), dtype=np.float32)
    out[:keep] = vecs[:keep]
    dim = vecs.shape[1]
    for start in range(0, m, 65_536):
        end = min(m, start + 65_536)
        mix = np.einsum("np,npd->nd", weights[start:end], vecs[picks[start:end]])
        noise = rng.standard_normal((end - start, dim)).astype(np.float32)
        noise *= (jitter * scale[anchors[start:end]] / np.sqrt(dim))[:, None]
        out[keep + start : keep + end] = _unit_rows(mix + noise)
    langs = [real.languages[i] for i in rows[:keep]] + [real.languages[rows[a]] for a in anchors]
    words: list[str] = []
    if texts:
        words = [real.texts[i] for i in rows[:keep]]
        words += [
            _mix_text(rng, [real.texts[rows[j]] for j in p], w)
            for p, w in zip(picks, weights, strict=True)
        ]
    all_anchors = np.concatenate([np.full(keep, -1), rows[anchors]])
    return Grown(out, words, langs, all_anchors)


def grown_cached(real: RealSet, n: int, seed: int, cache: Path | None, tag: str) -> Grown:
    """``grow(real, n, seed)``, kept in the cache folder (``tag`` names the real
    set) so a second benchmark run of the same size reads it instead."""
    folder = cache or default_cache()
    name = f"grown-{tag}-{n}-{seed}-{NEIGHBOURS}-{PARENTS}-{ALPHA}-{JITTER}".replace(".", "_")
    stem = folder / name
    npy, meta = stem.with_suffix(".npy"), stem.with_suffix(".json")
    if npy.is_file() and meta.is_file():
        info = json.loads(meta.read_text("utf-8"))
        return Grown(np.load(npy), info["texts"], info["languages"], np.asarray(info["anchors"]))
    grown = grow(real, n, seed)
    folder.mkdir(parents=True, exist_ok=True)
    meta.write_text(
        json.dumps(
            {"texts": grown.texts, "languages": grown.languages, "anchors": grown.anchors.tolist()},
            ensure_ascii=False,
        ),
        "utf-8",
    )
    tmp = stem.with_suffix(".tmp.npy")
    np.save(tmp, grown.vectors)
    os.replace(tmp, npy)
    return grown


def lid(sims: F32) -> float:
    """Levina-Bickel maximum-likelihood intrinsic dimension from each point's
    sorted nearest-neighbour cosines (distances ``sqrt(2 - 2 cos)``), the
    mean of the per-point inverse estimates inverted (MacKay and Ghahramani)."""
    d = np.sqrt(np.maximum(2 - 2 * sims.astype(np.float64), 1e-12))
    inv = np.mean(np.log(d[:, -1:] / d[:, :-1]), axis=1)
    return float(1 / np.mean(inv))


def _quantiles(x: npt.NDArray[np.floating]) -> str:
    q = np.quantile(x, [0.05, 0.25, 0.5, 0.75, 0.95])
    return " / ".join(f"{v:.3f}" for v in q)


def neighbour_report(real: RealSet, seed: int = 0, **options: float) -> dict[str, object]:
    """The held-apart checks of the module text, as quantiles of
    nearest-neighbour cosine distance (1 - cos) and intrinsic dimensions."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(real.vectors))
    half = len(order) // 2
    parent_rows, held = np.sort(order[:half]), real.vectors[np.sort(order[half:])]
    parent_set = real.vectors[parent_rows]
    grown = grow(
        real,
        half,
        seed,
        base=parent_rows,
        include_real=False,
        texts=False,
        **options,  # type: ignore[arg-type]
    ).vectors
    _, held_to_real = nearest(held, parent_set, 1)
    _, held_to_grown = nearest(held, grown, 1)
    _, grown_to_real = nearest(grown, parent_set, 1)
    _, held_to_held = nearest(held, held, 20, skip_self=True)
    _, grown_to_grown = nearest(grown, grown, 20, skip_self=True)
    _, queries_real = nearest(real.query_vectors, parent_set, 10)
    _, queries_grown = nearest(real.query_vectors, grown, 10)
    return {
        "size": half,
        "held-apart real -> nearest real": _quantiles(1 - held_to_real[:, 0]),
        "held-apart real -> nearest grown": _quantiles(1 - held_to_grown[:, 0]),
        "grown -> nearest real parent": _quantiles(1 - grown_to_real[:, 0]),
        "real -> nearest other real (same set)": _quantiles(1 - held_to_held[:, 0]),
        "grown -> nearest other grown": _quantiles(1 - grown_to_grown[:, 0]),
        "question -> 10th real": _quantiles(1 - queries_real[:, -1]),
        "question -> 10th grown": _quantiles(1 - queries_grown[:, -1]),
        "intrinsic dimension real": round(lid(held_to_held), 1),
        "intrinsic dimension grown": round(lid(grown_to_grown), 1),
    }


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench-data", type=Path, default=BENCH)
    parser.add_argument("--cache", type=Path, help="cache folder (default $JW_HOME/bench-cache)")
    parser.add_argument("--real-limit", type=int, help="only the first N paragraphs of each set")
    parser.add_argument("--jitter", type=float, default=JITTER)
    parser.add_argument("--alpha", type=float, default=ALPHA)
    parser.add_argument("--parents", type=int, default=PARENTS)
    parser.add_argument("--neighbours", type=int, default=NEIGHBOURS)
    args = parser.parse_args(argv)
    real = real_set(args.bench_data, args.cache, limit=args.real_limit)
    kinds = {k: real.kinds.count(k) for k in sorted(set(real.kinds))}
    print(f"{len(real.vectors):,} passages {kinds}, {len(real.queries):,} questions")
    report = neighbour_report(
        real,
        jitter=args.jitter,
        alpha=args.alpha,
        parents=args.parents,
        neighbours=args.neighbours,
    )
    print("nearest-neighbour cosine distance, quantiles 5 / 25 / 50 / 75 / 95 %:")
    for key, value in report.items():
        print(f"  {key}: {value}")
    return report


if __name__ == "__main__":
    main()

"""Chunking speed: our paragraph and semantic chunkers against the peers most
users would otherwise pick, at the same 1500-character limit, in one run.

    uv run --frozen python benchmarks/chunk_speed.py [--bench-data ../shared/bench-data] [--repeat 5]

Input: the prose of the shared benchmark data (XQuAD en/es and FaQuAD pt
articles as paragraph lists, Chroma's corpora split on blank lines). Every
chunker gets the same documents; ours take the paragraph list, the peers the
same text joined by blank lines. Reports MB/s (median of --repeat rounds; in
each round every chunker chunks the whole corpus, one after the other) and
each one's speed as a ratio to the fastest peer's (also paired: the median,
over rounds, of the two times measured in the same round, with its range).
Peers come from the `bench` extra (langchain-text-splitters, chonkie, semchunk).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from jw_rag.chunkers import ParagraphChunker, SemanticChunker

REPO = Path(__file__).resolve().parent.parent


def load_documents(bench: Path) -> list[tuple[str, list[str]]]:
    docs: list[tuple[str, list[str]]] = []
    for path, lang in [
        (bench / "xquad" / "xquad.en.json", "en"),
        (bench / "xquad" / "xquad.es.json", "es"),
        (bench / "faquad" / "dataset.json", "pt"),
    ]:
        data = json.loads(path.read_text("utf-8"))
        for article in data["data"]:
            docs.append((lang, [p["context"] for p in article["paragraphs"]]))
    for md in sorted((bench / "chroma" / "corpora").glob("*.md")):
        docs.append(("en", [p for p in md.read_text("utf-8").split("\n\n")]))
    return docs


def peers(size: int) -> dict[str, Callable[[str], int]]:
    out: dict[str, Callable[[str], int]] = {}
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        lc = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=0)
        out[f"langchain-recursive-{size}c"] = lambda text: len(lc.split_text(text))
    except ImportError:
        pass
    try:
        from chonkie import RecursiveChunker

        ck = RecursiveChunker(tokenizer="character", chunk_size=size)
        out[f"chonkie-recursive-{size}c"] = lambda text: len(ck.chunk(text))
    except ImportError:
        pass
    try:
        import semchunk

        sc = semchunk.chunkerify(len, size)
        out[f"semchunk-{size}c"] = lambda text: len(sc(text))
    except ImportError:
        pass
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench-data", type=Path, default=REPO.parent / "shared" / "bench-data")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--size", type=int, default=1500)
    args = ap.parse_args(argv)
    if not args.bench_data.is_dir():
        raise SystemExit(f"no benchmark data at {args.bench_data}: pass --bench-data PATH")
    docs = load_documents(args.bench_data)
    texts = ["\n\n".join(ps) for _, ps in docs]
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6

    ours: dict[str, Callable[[int], int]] = {}
    para = ParagraphChunker(max_chars=args.size)
    sem = SemanticChunker(max_chars=args.size)
    ours["paragraph"] = lambda i: len(
        para.chunk(docs[i][1], f"d{i}", metadata={"language": docs[i][0]})
    )
    ours["semantic"] = lambda i: len(
        sem.chunk(docs[i][1], f"d{i}", metadata={"language": docs[i][0]})
    )
    ours["semantic (detect language)"] = lambda i: len(sem.chunk(docs[i][1], f"d{i}"))

    candidates: dict[str, Callable[[int], int]] = dict(ours)
    for name, fn in peers(args.size).items():
        candidates[name] = lambda i, fn=fn: fn(texts[i])
    for fn in candidates.values():
        fn(0)  # warm-up: imports, caches
    # Rounds: each chunker in turn over the whole corpus, so that the
    # machine's ups and downs fall on all of them alike.
    times: dict[str, list[float]] = {name: [] for name in candidates}
    counts: dict[str, int] = {}
    for _ in range(args.repeat):
        for name, fn in candidates.items():
            t0 = time.perf_counter()
            counts[name] = sum(fn(i) for i in range(len(docs)))
            times[name].append(time.perf_counter() - t0)
    speeds = {name: mb / statistics.median(times[name]) for name in candidates}
    peer_names = [name for name in candidates if name not in ours]
    fastest = max(peer_names, key=speeds.__getitem__, default=None)
    print(
        f"{len(docs)} documents, {mb:.2f} MB, median of {args.repeat} rounds, "
        f"limit {args.size} chars\n"
    )
    print("| chunker | chunks | MB/s | x fastest peer | x fastest peer, per round [min, max] |")
    print("|---|---:|---:|---:|---|")
    for name in candidates:
        speed = speeds[name]
        if fastest is None:
            print(f"| {name} | {counts[name]} | {speed:.1f} | | |")
            continue
        # Paired: the peer's time over this one's in the same round.
        ratios = sorted(p / t for p, t in zip(times[fastest], times[name], strict=True))
        print(
            f"| {name} | {counts[name]} | {speed:.1f} | {speed / speeds[fastest]:.2f} | "
            f"{statistics.median(ratios):.2f} [{ratios[0]:.2f}, {ratios[-1]:.2f}] |"
        )


if __name__ == "__main__":
    main()

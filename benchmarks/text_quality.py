"""Language detection accuracy and sentence segmentation quality and speed.

Reads the public SQuAD-format sets in ../shared/bench-data (XQuAD en/es,
FaQuAD pt) from that path; nothing is copied into the repository.

    uv run --frozen python benchmarks/text_quality.py

Optional detectors are measured when importable, e.g.

    uv run --frozen --with py3langid --with lingua-language-detector \
        python benchmarks/text_quality.py
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

from jw_core import detect_language, split_sentences

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT.parent / "shared" / "bench-data"
SOURCES = {
    "en": "xquad/xquad.en.json",
    "es": "xquad/xquad.es.json",
    "pt": "faquad/dataset.json",
}
LANGS = ("en", "es", "pt")
BUCKETS = ("paragraph", "sentence", "snippet")
SEGMENTATION_GOLD = ROOT / "tests" / "core" / "data" / "boundaries_gold.json"

Detector = Callable[[str], "str | None"]


def load_paragraphs(bench: Path, lang: str) -> list[tuple[str, int, str]]:
    """``(title, index, context)`` for every paragraph of one language's set."""
    data = json.loads((bench / SOURCES[lang]).read_text("utf-8"))
    out = []
    for article in data["data"]:
        for i, para in enumerate(article["paragraphs"]):
            out.append((article["title"], i, para["context"].lstrip("\ufeff")))
    return out


def snippet(text: str, lo: int = 40, hi: int = 60) -> str:
    """The first ``lo``..``hi`` characters of ``text``, cut at a space."""
    if len(text) <= hi:
        return text
    cut = text.rfind(" ", lo, hi)
    return text[: cut if cut > 0 else hi]


def labelled_samples(bench: Path) -> dict[tuple[str, str], list[str]]:
    """Texts per (language, bucket): whole paragraphs, their first sentence,
    and their first 40-60 characters."""
    out: dict[tuple[str, str], list[str]] = {}
    for lang in LANGS:
        paras = [c for _, _, c in load_paragraphs(bench, lang)]
        firsts = []
        for c in paras:
            spans = split_sentences(c, lang)
            if spans:
                firsts.append(c[spans[0][0] : spans[0][1]])
        out[lang, "paragraph"] = paras
        out[lang, "sentence"] = firsts
        out[lang, "snippet"] = [snippet(c) for c in paras]
    return out


def _words_only(text: str) -> str | None:
    """jw_core's stage-1 word scorer alone: the top language, None on a tie."""
    from jw_core.language import SUPPORTED_LANGUAGES, _word_scores

    scores = _word_scores(text.lower())
    best = max(scores)
    if best < 2.0 or scores.count(best) > 1:
        return None
    return SUPPORTED_LANGUAGES[scores.index(best)]


def _fast_path_only(text: str) -> str | None:
    """jw_core's stage-1 answer when it is confident enough to skip the model."""
    from jw_core.language import SUPPORTED_LANGUAGES, _fast_guess

    return _fast_guess(text, frozenset(SUPPORTED_LANGUAGES))


def detectors() -> dict[str, Detector]:
    """jw_core's detector plus every optional library that imports."""
    found: dict[str, Detector] = {
        "jw_core": detect_language,
        "words": _words_only,
        "fastpath": _fast_path_only,
    }
    try:
        import py3langid
        from py3langid.langid import MODEL_FILE, LanguageIdentifier

        ident = LanguageIdentifier.from_model_file(MODEL_FILE)
        ident.set_languages(list(LANGS))
        found["py3langid"] = lambda t: ident.classify(t)[0] if t.strip() else None
        del py3langid
    except ImportError:
        print("py3langid not installed: skipped", file=sys.stderr)
    try:
        from lingua import Language, LanguageDetectorBuilder

        lingua = LanguageDetectorBuilder.from_languages(
            Language.ENGLISH, Language.SPANISH, Language.PORTUGUESE
        ).build()
        codes = {Language.ENGLISH: "en", Language.SPANISH: "es", Language.PORTUGUESE: "pt"}

        def _lingua(t: str) -> str | None:
            lang = lingua.detect_language_of(t)
            return codes.get(lang) if lang is not None else None

        found["lingua"] = _lingua
    except ImportError:
        print("lingua-language-detector not installed: skipped", file=sys.stderr)
    return found


def bench_detection(bench: Path) -> None:
    samples = labelled_samples(bench)
    dets = detectors()
    print("## Language detection accuracy (✗ wrong answers, ∅ None answers)")
    sizes = {b: sum(len(samples[lang, b]) for lang in LANGS) for b in BUCKETS}
    print("texts per bucket: " + ", ".join(f"{b} {n}" for b, n in sizes.items()))
    header = f"{'detector':<10} {'lang':<4} " + " ".join(f"{b:>17}" for b in BUCKETS)
    print(header)
    for name, det in dets.items():
        for lang in LANGS:
            cells = []
            for b in BUCKETS:
                texts = samples[lang, b]
                got = [det(t) for t in texts]
                ok = sum(g == lang for g in got)
                none = sum(g is None for g in got)
                wrong = len(texts) - ok - none
                cells.append(f"{100 * ok / len(texts):5.1f}% ✗{wrong:<3d}∅{none:<3d}")
            print(f"{name:<10} {lang:<4} " + " ".join(f"{c:>17}" for c in cells))
    print()
    print("## Detection speed (µs per call)")
    doc_samples = []
    for lang in LANGS:
        paras = samples[lang, "paragraph"]
        for i in range(0, len(paras) - 3, 4):
            doc_samples.append(" ".join(paras[i : i + 4])[:1500])
    for name, det in dets.items():
        det(doc_samples[0])  # loads a lazy model outside the timing
        row = []
        for label, texts in (
            ("1500-char", doc_samples),
            ("paragraph", [t for lang in LANGS for t in samples[lang, "paragraph"]]),
            ("snippet", [t for lang in LANGS for t in samples[lang, "snippet"]]),
        ):
            # Distinct strings each round so no cache answers.
            texts = [t + " " for t in texts]
            t0 = time.perf_counter()
            for t in texts:
                det(t)
            row.append(f"{label} {1e6 * (time.perf_counter() - t0) / len(texts):8.1f}")
        print(f"{name:<10} " + "   ".join(row))
    print()


_NAIVE = re.compile(r"[.!?]+[\"'”’»)]*\s+(?=[\"'“‘«(¿¡]*[A-ZÀ-Ý0-9])")


def naive_split(text: str, language: str | None = None) -> list[tuple[int, int]]:
    """Baseline: split after any terminal punctuation followed by a capital."""
    spans, start = [], 0
    for m in _NAIVE.finditer(text):
        spans.append((start, m.end() - len(m.group()) + len(m.group().rstrip())))
        start = m.end()
    if start < len(text.rstrip()):
        spans.append((start, len(text.rstrip())))
    return spans


Splitter = Callable[..., "list[tuple[int, int]]"]


def boundary_scores(bench: Path, splitter: Splitter) -> dict[str, tuple[int, int, int]]:
    """Per language: (true positives, false positives, false negatives) of
    sentence starts against the hand-labelled sample."""
    gold = json.loads(SEGMENTATION_GOLD.read_text("utf-8"))
    out = {}
    for lang, rows in gold["languages"].items():
        texts = {(t, i): c for t, i, c in load_paragraphs(bench, lang)}
        tp = fp = fn = 0
        for row in rows:
            text = texts[row["title"], row["paragraph"]]
            if len(text) != row["chars"]:
                raise SystemExit(f"bench data changed: {lang} {row['title']} has {len(text)} chars")
            want = set(row["boundaries"])
            got = {a for a, _ in splitter(text, lang)[1:]}
            tp += len(want & got)
            fp += len(got - want)
            fn += len(want - got)
        out[lang] = (tp, fp, fn)
    return out


def bench_segmentation(bench: Path) -> None:
    print("## Sentence boundaries vs the hand-labelled sample (tests/core/data)")
    print(f"{'splitter':<10} {'lang':<4} {'gold':>5} {'precision':>10} {'recall':>8}  fp  fn")
    for name, splitter in (("jw_core", split_sentences), ("naive", naive_split)):
        for lang, (tp, fp, fn) in boundary_scores(bench, splitter).items():
            p = tp / (tp + fp) if tp + fp else 1.0
            r = tp / (tp + fn) if tp + fn else 1.0
            print(f"{name:<10} {lang:<4} {tp + fn:5d} {p:10.3f} {r:8.3f} {fp:3d} {fn:3d}")
    print()
    print("## Segmentation speed")
    paras = [c for lang in LANGS for _, _, c in load_paragraphs(bench, lang)]
    size = sum(len(p.encode("utf-8")) for p in paras)
    for name, splitter in (("jw_core", split_sentences), ("naive", naive_split)):
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for p in paras:
                splitter(p)
            best = min(best, time.perf_counter() - t0)
        print(
            f"{name:<10} {len(paras)} paragraphs, {size / 1e6:.2f} MB: "
            f"{size / best / 1e6:6.1f} MB/s, {1e6 * best / len(paras):6.1f} µs/paragraph"
        )
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench-data", type=Path, default=BENCH)
    args = ap.parse_args()
    if not args.bench_data.is_dir():
        raise SystemExit(f"bench data not found at {args.bench_data}: pass --bench-data PATH")
    bench_detection(args.bench_data)
    bench_segmentation(args.bench_data)


if __name__ == "__main__":
    main()

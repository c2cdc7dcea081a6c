"""The Markdown rendering of a benchmark report (for people; JSON is for tools)."""

from __future__ import annotations

from typing import Any

__all__ = ["render_markdown"]


def _f(v: Any, digits: int = 3) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return "nan" if v != v else f"{v:.{digits}f}"
    return str(v)


def _count(n: int, singular: str, plural: str | None = None) -> str:
    """``1 question``, ``2 questions``."""
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"


def _name(report: dict[str, Any], label: str) -> str:
    """A variant's label, marked when it is the pipeline users get."""
    shipped = report["config"].get("shipped_default")
    return f"{label} (shipped default)" if label == shipped else label


def _metric_label(name: str) -> str:
    """``ndcg@2000c`` as ``NDCG within 2000 chars``, ``ndcg@10`` as ``NDCG@10``."""
    if name.startswith("ndcg@") and name.endswith("c"):
        return f"NDCG within {name[5:-1]} chars"
    return name.replace("ndcg", "NDCG", 1) if name.startswith("ndcg") else name


def _comparison(key: str) -> str:
    """``delta_semantic_vs_paragraph`` as ``semantic vs paragraph``."""
    variant, _, baseline = key.removeprefix("delta_").rpartition("_vs_")
    return f"{variant} vs {baseline}" if variant else key


def _lift(d: dict[str, Any]) -> str:
    """A lift and its CI95 as two table cells, in percent."""
    lo, hi = d["ci95"]
    return f"{d['lift'] * 100:+.1f}% | [{lo * 100:+.1f}%, {hi * 100:+.1f}%]"


def _ndcg(block: dict[str, Any], name: str = "ndcg@10") -> str:
    e = block[name]
    if "ci95" not in e:
        return _f(e["value"])
    return f"{_f(e['value'])} [{_f(e['ci95'][0])}, {_f(e['ci95'][1])}]"


def _table(
    title: str, rows: list[tuple[str, int, dict[str, Any], str]], names: list[str]
) -> list[str]:
    shown = [n for n in names if n != "ndcg@10"]
    out = [
        f"### {title}",
        "",
        "| variant | n | mean len | NDCG@10 [95% CI] | " + " | ".join(shown) + " |",
        "|---|---:|---:|---|" + "---:|" * len(shown),
    ]
    for name, n, metrics, mean_len in rows:
        cells = " | ".join(_ndcg(metrics, m) for m in shown)
        out.append(f"| {name} | {n} | {mean_len} | {_ndcg(metrics)} | {cells} |")
    return [*out, ""]


def _describe(kind: str, budget: bool) -> str:
    """What a metric column means, N standing for its cutoff, B for its budget."""
    if budget:
        return {
            "ndcg": "NDCG of what was delivered within B characters, one rank per delivered "
            "hit with its expansion (with its 95% CI)",
            "recall": "share of the expected spans touched by what was delivered within B characters",
            "complete": "1 when every expected span is inside what was delivered within "
            "B characters",
        }.get(kind, kind)
    return {
        "ndcg": "NDCG of the top N hits over the expected spans (with its 95% CI)",
        "doc_ndcg": "NDCG of the top N hits judged by document instead of span",
        "mrr": "reciprocal rank of the first hit touching an expected span, within the top N",
        "hit": "1 when any of the top N hits touches an expected span",
        "recall": "share of the expected spans touched by the top N hits",
        "char_recall": "share of the expected characters in what the top N hits delivered",
        "char_precision": "share of what the top N hits delivered that is expected",
        "char_iou": "expected characters the top N hits delivered, over the union of both",
        "complete": "1 when every expected span is inside what the top N hits delivered",
    }.get(kind, kind)


def _legend(names: list[str]) -> list[str]:
    """One line per kind of metric, naming its columns."""
    groups: dict[tuple[str, bool], list[str]] = {}
    for n in names:
        kind, _, at = n.partition("@")
        groups.setdefault((kind, at.endswith("c")), []).append(n)
    lines = [
        "Columns: n is the number of questions, mean len the mean chunk length in "
        "characters; each metric is a mean over the questions (N is the number after the @, "
        "B the number of characters in `@Bc`):",
        "",
    ]
    lines += [
        f"- {', '.join(f'`{n}`' for n in cols)}: {_describe(kind, budget)}"
        for (kind, budget), cols in groups.items()
    ]
    return [*lines, ""]


#: What a loader counter means: the noun it counts and what happened to them.
_LOADER_NOTES: dict[str, tuple[str, str]] = {
    "answers_refound": ("answer", "re-found elsewhere in their context"),
    "answers_refound_ci": ("answer", "re-found ignoring case"),
    "answers_not_found": ("answer", "not found in their context"),
    "answers_unusable": ("answer", "unusable (no offset or no letter)"),
    "questions_using_later_answer": ("question", "answered by a later gold answer"),
    "skipped_impossible": ("unanswerable question", "skipped"),
    "questions_dropped": ("question", "dropped (no answer could be located)"),
    "questions_without_corpus": ("question", "without their document"),
    "references_unmappable": ("reference", "not found in their document"),
    "shape_spans_without_text": ("answer span", "without text, left out by the shape"),
    "shape_questions_dropped": ("question", "dropped by the shape"),
}


def _loader_note(stats: dict[str, int]) -> str:
    """What the loader repaired or dropped, in words (nothing when it did nothing)."""
    notes = [
        f"{_count(stats[key], noun)} {what}"
        for key, (noun, what) in _LOADER_NOTES.items()
        if stats.get(key)
    ]
    return f" Loading: {'; '.join(notes)}." if notes else ""


def _header(report: dict[str, Any]) -> list[str]:
    ds, cfg = report["dataset"], report["config"]
    shape = cfg.get("shape")
    title = f"# Chunker benchmark: {ds['name']}" + (f", shape {shape}" if shape else "")
    langs = ", ".join(f"{k}: {v}" for k, v in ds["languages"].items())
    lines = [
        title,
        "",
        f"{_count(ds['n_documents'], 'document')}, {_count(ds['n_queries'], 'question')} "
        f"({langs}), format {ds['format']}"
        + (f", documents laid out as `{shape}`" if shape else "")
        + f". Retriever {cfg['retriever']}, k={cfg['k']}, embedder `{cfg['embedder']}`, "
        f"delivery {cfg['expand']}, window units up to {cfg.get('window_chars', 0)} characters."
        + _loader_note(ds["loader_stats"]),
        "",
    ]
    shipped = cfg.get("shipped_default")
    lines += [
        f"`{shipped}` is the shipped default: the pipeline `jw rag ingest` and "
        "`jw rag search` run with no options."
        if shipped
        else "No variant is the shipped default (its chunker, windows, delivery, "
        "retriever and k as shipped).",
        "",
    ]
    return lines


def _summary(report: dict[str, Any]) -> list[str]:
    """The short table the report leads with: per variant and language, NDCG@10
    and NDCG within each budget, with the mean chunk length beside them."""
    budgets = [n for n in report["metric_names"] if n.startswith("ndcg@") and n.endswith("c")]
    heads = ["NDCG@10", *(f"NDCG within {n[5:-1]} chars" for n in budgets)]
    lines = [
        "## Summary",
        "",
        "| variant | language | mean chars | " + " | ".join(heads) + " |",
        "|---|---|---:|" + "---:|" * len(heads),
    ]
    for v in report["variants"]:
        blocks = [("all", v["metrics"], v["mean_chunk_chars"])]
        if len(v["by_language"]) > 1:
            blocks += [
                (lang, b["metrics"], b["mean_chunk_chars"]) for lang, b in v["by_language"].items()
            ]
        for lang, metrics, mean_len in blocks:
            cells = " | ".join(_f(metrics[n]["value"]) for n in ["ndcg@10", *budgets])
            lines.append(f"| {_name(report, v['name'])} | {lang} | {mean_len:.0f} | {cells} |")
    return [*lines, ""]


def _variants(report: dict[str, Any]) -> list[str]:
    lines = [
        "## Variants",
        "",
        "| variant | n chunks | n windows | mean chars | median chars | chunk s | embed+index s "
        "| search s | score s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for v in report["variants"]:
        t = v["timings_s"]
        lines.append(
            f"| {_name(report, v['name'])} | {v['n_chunks']} | {v.get('n_windows', 0)} | "
            f"{v['mean_chunk_chars']:.0f} | {v['median_chunk_chars']:.0f} | {t['chunk']:.2f} | "
            f"{t['embed_index']:.2f} | {t['search']:.2f} | {t['score']:.2f} |"
        )
    lines.append("")
    return lines


def _metric_tables(report: dict[str, Any]) -> list[str]:
    names: list[str] = report["metric_names"]
    variants = report["variants"]
    lines = _table(
        "All questions",
        [
            (_name(report, v["name"]), v["n_queries"], v["metrics"], f"{v['mean_chunk_chars']:.0f}")
            for v in variants
        ],
        names,
    )
    lines += _legend(names)
    langs = sorted({lang for v in variants for lang in v["by_language"]})
    for lang in langs if len(langs) > 1 else []:
        rows = [
            (_name(report, v["name"]), b["n"], b["metrics"], f"{b['mean_chunk_chars']:.0f}")
            for v in variants
            if (b := v["by_language"].get(lang))
        ]
        lines += _table(f"Language {lang}", rows, names)
    multi = [
        (
            _name(report, v["name"]),
            v["multi_span"]["n"],
            v["multi_span"]["metrics"],
            f"{v['mean_chunk_chars']:.0f}",
        )
        for v in variants
        if v["multi_span"]["n"]
    ]
    if multi:
        lines += _table("Multi-span questions", multi, names)
    return lines


def _lifts(report: dict[str, Any]) -> list[str]:
    if not report["deltas"]:
        return []
    lines = [
        "## Lift over paragraph (paired bootstrap)",
        "",
        "NDCG@10 judges the hits; NDCG within B chars judges what was delivered within "
        "B characters. Lift is relative (+10% is 1.1 times the baseline's mean), over the "
        "same questions.",
        "",
        "| comparison | metric | language | questions | lift | 95% CI | gate |",
        "|---|---|---|---:|---:|---|---|",
    ]
    for table in [report["deltas"], *report.get("budget_deltas", {}).values()]:
        for key, per_lang in table.items():
            for lang, d in per_lang.items():
                lines.append(
                    f"| {_comparison(key)} | {_metric_label(d['metric'])} | {lang} | {d['n']} | "
                    f"{_lift(d)} | {d.get('gate', '–')} |"
                )
    gate = report["gate"]
    if gate["min_lift"] is not None:
        verdict = "PASSED" if gate["passed"] else "FAILED: " + ", ".join(gate["failures"])
        lines += ["", f"Gate (lower CI bound > {gate['min_lift']}% in every language): {verdict}"]
    lines.append("")
    return lines


def _peer_lifts(report: dict[str, Any]) -> list[str]:
    peer = report.get("peer_deltas") or {}
    if not peer:
        return []
    best = report.get("best_peers") or {}
    n_peers = len(next(iter(next(iter(best.values())).values()))["peers"]) if best else 0
    lines = [
        "## Against the best peer (paired bootstrap)",
        "",
        "Per budget and language, the best peer is the one of the run's "
        f"{_count(n_peers, 'peer')} with the highest mean there; the JSON report has "
        "every peer's mean.",
        "",
        "| metric | language | best peer | its value | runner-up | its value |",
        "|---|---|---|---:|---|---:|",
    ]
    for metric, per_lang in best.items():
        for lang, b in per_lang.items():
            others = sorted(
                ((v, p) for p, v in b["peers"].items() if p != b["peer"]), key=lambda t: -t[0]
            )
            second = f"{others[0][1]} | {_f(others[0][0])}" if others else "– | –"
            lines.append(
                f"| {_metric_label(metric)} | {lang} | {b['peer']} | {_f(b['value'])} | {second} |"
            )
    lines += [
        "",
        "| variant | metric | language | questions | value | best peer | peer value | lift "
        "| 95% CI |",
        "|---|---|---|---:|---:|---|---:|---:|---|",
    ]
    shipped = report["config"].get("shipped_default")
    for metric, table in peer.items():
        ordered = sorted(table.items(), key=lambda kv: kv[0] != shipped)
        for variant, per_lang in ordered:
            for lang, d in per_lang.items():
                lines.append(
                    f"| {_name(report, variant)} | {_metric_label(metric)} | {lang} | {d['n']} | "
                    f"{_f(d['value'])} | {d['peer']} | {_f(d['peer_value'])} | {_lift(d)} |"
                )
    lines.append("")
    return lines


def _markers_and_time(report: dict[str, Any]) -> list[str]:
    lines = [
        "## Marker firing rates",
        "",
        "| language | paragraphs | continuation | closure |",
        "|---|---:|---:|---:|",
    ]
    for lang, m in report["markers"].items():
        lines.append(
            f"| {lang} | {m['paragraphs']} | {_f(m['continuation_rate'])} | {_f(m['closure_rate'])} |"
        )
    t = report["timings_s"]
    return [
        *lines,
        "",
        f"Wall time: parse {t['parse']:.2f} s, query embedding {t['embed_queries']:.2f} s, "
        f"total {t['total']:.2f} s.",
        "",
    ]


def render_markdown(report: dict[str, Any]) -> str:
    """The report as Markdown: one renderer per section."""
    sections = (
        _header,
        _summary,
        _variants,
        _metric_tables,
        _lifts,
        _peer_lifts,
        _markers_and_time,
    )
    return "\n".join(line for render in sections for line in render(report))

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


def _header(report: dict[str, Any]) -> list[str]:
    ds, cfg = report["dataset"], report["config"]
    return [
        f"# Chunker benchmark: {ds['name']}",
        "",
        f"{ds['n_documents']} documents, {ds['n_queries']} questions "
        f"({', '.join(f'{k}: {v}' for k, v in ds['languages'].items())}), format {ds['format']}. "
        f"Retriever {cfg['retriever']}, k={cfg['k']}, embedder `{cfg['embedder']}`, "
        f"expansion {cfg['expand']}, window units up to {cfg.get('window_chars', 0)} characters. "
        "Loader: "
        + (", ".join(f"{k} {v}" for k, v in sorted(ds["loader_stats"].items())) or "no repairs")
        + ".",
        "",
    ]


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
            lines.append(f"| {v['name']} | {lang} | {mean_len:.0f} | {cells} |")
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
            f"| {v['name']} | {v['n_chunks']} | {v.get('n_windows', 0)} | "
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
            (v["name"], v["n_queries"], v["metrics"], f"{v['mean_chunk_chars']:.0f}")
            for v in variants
        ],
        names,
    )
    langs = sorted({lang for v in variants for lang in v["by_language"]})
    for lang in langs if len(langs) > 1 else []:
        rows = [
            (v["name"], b["n"], b["metrics"], f"{b['mean_chunk_chars']:.0f}")
            for v in variants
            if (b := v["by_language"].get(lang))
        ]
        lines += _table(f"Language {lang}", rows, names)
    multi = [
        (
            v["name"],
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
        "NDCG@10 judges the hits; NDCG@<B>c judges what was delivered within B characters.",
        "",
        "| comparison | metric | language | n | lift | 95% CI | gate |",
        "|---|---|---|---:|---:|---|---|",
    ]
    for table in [report["deltas"], *report.get("budget_deltas", {}).values()]:
        for key, per_lang in table.items():
            for lang, d in per_lang.items():
                lines.append(
                    f"| {key} | {d['metric']} | {lang} | {d['n']} | {_lift(d)} | "
                    f"{d.get('gate', '–')} |"
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
    lines = [
        "## Lift over the best peer (paired bootstrap)",
        "",
        "Per language and budget, against the peer with the higher mean in that language.",
        "",
        "| variant | metric | language | n | value | best peer | peer value | lift | 95% CI |",
        "|---|---|---|---:|---:|---|---:|---:|---|",
    ]
    for metric, table in peer.items():
        for variant, per_lang in table.items():
            for lang, d in per_lang.items():
                lines.append(
                    f"| {variant} | {metric} | {lang} | {d['n']} | {_f(d['value'])} | "
                    f"{d['peer']} | {_f(d['peer_value'])} | {_lift(d)} |"
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

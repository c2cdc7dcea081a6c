"""An SVG bar chart of NDCG@10 with CI95 whiskers, per variant and language."""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

__all__ = ["ndcg_chart"]

_COLOURS = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb")


def ndcg_chart(report: dict[str, Any]) -> str:
    """Groups = ``all`` plus each language; one bar per variant in each group."""
    variants = report["variants"]
    groups = ["all", *sorted({lang for v in variants for lang in v["by_language"]})]
    if len(groups) == 2:  # one language: "all" says the same thing
        groups = groups[1:]
    bar, gap, pad_l, pad_t, height = 26, 22, 48, 30, 220
    group_w = bar * len(variants) + gap
    width = pad_l + group_w * len(groups) + 20 + 170
    total_h = pad_t + height + 50

    def y(v: float) -> float:
        return pad_t + height * (1 - max(0.0, min(1.0, v)))

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total_h}" '
        f'viewBox="0 0 {width} {total_h}" font-family="sans-serif" font-size="11">',
        f'<text x="{pad_l}" y="16" font-size="13">NDCG@10 with 95% CI '
        f"({escape(str(report['dataset']['name']))})</text>",
    ]
    for t in range(0, 11, 2):
        v = t / 10
        parts.append(
            f'<line x1="{pad_l}" x2="{pad_l + group_w * len(groups)}" y1="{y(v):.1f}" '
            f'y2="{y(v):.1f}" stroke="#ddd"/><text x="{pad_l - 6}" y="{y(v) + 4:.1f}" '
            f'text-anchor="end">{v:.1f}</text>'
        )
    for g, group in enumerate(groups):
        x0 = pad_l + g * group_w + gap / 2
        for i, variant in enumerate(variants):
            block = variant["metrics"] if group == "all" else variant["by_language"].get(group)
            if group != "all":
                block = block["metrics"] if block else None
            if not block:
                continue
            est = block["ndcg@10"]
            lo, hi = est["ci95"]
            x = x0 + i * bar
            colour = _COLOURS[i % len(_COLOURS)]
            parts.append(
                f'<rect x="{x + 2:.1f}" y="{y(est["value"]):.1f}" width="{bar - 4}" '
                f'height="{pad_t + height - y(est["value"]):.1f}" fill="{colour}">'
                f"<title>{escape(variant['name'])} {group}: {est['value']:.3f} "
                f"[{lo:.3f}, {hi:.3f}]</title></rect>"
            )
            cx = x + bar / 2
            parts.append(
                f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{y(hi):.1f}" y2="{y(lo):.1f}" '
                f'stroke="#222"/><line x1="{cx - 5:.1f}" x2="{cx + 5:.1f}" y1="{y(hi):.1f}" '
                f'y2="{y(hi):.1f}" stroke="#222"/><line x1="{cx - 5:.1f}" x2="{cx + 5:.1f}" '
                f'y1="{y(lo):.1f}" y2="{y(lo):.1f}" stroke="#222"/>'
            )
        parts.append(
            f'<text x="{x0 + bar * len(variants) / 2:.1f}" y="{pad_t + height + 18}" '
            f'text-anchor="middle">{escape(group)}</text>'
        )
    lx = pad_l + group_w * len(groups) + 20
    for i, variant in enumerate(variants):
        ly = pad_t + 10 + i * 18
        parts.append(
            f'<rect x="{lx}" y="{ly - 9}" width="12" height="12" '
            f'fill="{_COLOURS[i % len(_COLOURS)]}"/><text x="{lx + 18}" y="{ly + 1}">'
            f"{escape(variant['name'])}</text>"
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"

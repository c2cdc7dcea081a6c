"""An SVG bar chart of the report's headline measures with CI95 whiskers:
one panel per measure (NDCG@10 of the hits, then NDCG of what was delivered
within each character budget), groups ``all`` plus each language, one bar
per variant in each group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

__all__ = ["ndcg_chart"]

_COLOURS = ("#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb")
_BAR, _GAP, _PAD_L, _PAD_T, _HEIGHT = 22, 18, 44, 46, 200


@dataclass(frozen=True)
class _Panel:
    """One measure's bars, drawn from ``left``."""

    measure: str
    left: float
    groups: tuple[str, ...]
    n_variants: int

    @property
    def width(self) -> float:
        return (_BAR * self.n_variants + _GAP) * len(self.groups)


def _y(v: float) -> float:
    return _PAD_T + _HEIGHT * (1 - max(0.0, min(1.0, v)))


def _block(variant: dict[str, Any], group: str) -> dict[str, Any] | None:
    if group == "all":
        return variant["metrics"]
    by_lang = variant["by_language"].get(group)
    return by_lang["metrics"] if by_lang else None


def _bar(x: float, colour: str, est: dict[str, Any], title: str) -> list[str]:
    lo, hi = est["ci95"]
    cx = x + _BAR / 2
    return [
        f'<rect x="{x + 2:.1f}" y="{_y(est["value"]):.1f}" width="{_BAR - 4}" '
        f'height="{_PAD_T + _HEIGHT - _y(est["value"]):.1f}" fill="{colour}">'
        f"<title>{escape(title)}: {est['value']:.3f} [{lo:.3f}, {hi:.3f}]</title></rect>",
        f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{_y(hi):.1f}" y2="{_y(lo):.1f}" stroke="#222"/>',
        f'<line x1="{cx - 4:.1f}" x2="{cx + 4:.1f}" y1="{_y(hi):.1f}" y2="{_y(hi):.1f}" stroke="#222"/>',
        f'<line x1="{cx - 4:.1f}" x2="{cx + 4:.1f}" y1="{_y(lo):.1f}" y2="{_y(lo):.1f}" stroke="#222"/>',
    ]


def _panel(panel: _Panel, variants: list[dict[str, Any]]) -> list[str]:
    parts = [
        f'<text x="{panel.left}" y="{_PAD_T - 12}" font-size="12">{escape(panel.measure)}</text>'
    ]
    for t in range(0, 11, 2):
        parts.append(
            f'<line x1="{panel.left}" x2="{panel.left + panel.width}" y1="{_y(t / 10):.1f}" '
            f'y2="{_y(t / 10):.1f}" stroke="#ddd"/>'
        )
    group_w = _BAR * panel.n_variants + _GAP
    for g, group in enumerate(panel.groups):
        x0 = panel.left + g * group_w + _GAP / 2
        for i, variant in enumerate(variants):
            block = _block(variant, group)
            est = block.get(panel.measure) if block else None
            if est and "ci95" in est:
                title = f"{variant['name']} {group} {panel.measure}"
                parts += _bar(x0 + i * _BAR, _COLOURS[i % len(_COLOURS)], est, title)
        parts.append(
            f'<text x="{x0 + _BAR * panel.n_variants / 2:.1f}" y="{_PAD_T + _HEIGHT + 16}" '
            f'text-anchor="middle">{escape(group)}</text>'
        )
    return parts


def _legend(variants: list[dict[str, Any]], left: float) -> list[str]:
    parts = []
    for i, variant in enumerate(variants):
        ly = _PAD_T + 10 + i * 18
        parts.append(
            f'<rect x="{left}" y="{ly - 9}" width="12" height="12" '
            f'fill="{_COLOURS[i % len(_COLOURS)]}"/><text x="{left + 18}" y="{ly + 1}">'
            f"{escape(variant['name'])}</text>"
        )
    return parts


def ndcg_chart(report: dict[str, Any]) -> str:
    """The chart as an SVG document (see the module docstring)."""
    variants = report["variants"]
    groups = ["all", *sorted({lang for v in variants for lang in v["by_language"]})]
    if len(groups) == 2:  # one language: "all" says the same thing
        groups = groups[1:]
    names = [
        n
        for n in report["metric_names"]
        if n == "ndcg@10" or (n.startswith("ndcg@") and n.endswith("c"))
    ]
    panels, left = [], float(_PAD_L)
    for name in names:
        panels.append(_Panel(name, left, tuple(groups), len(variants)))
        left += panels[-1].width + 30
    width, height = left + 190, _PAD_T + _HEIGHT + 40
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
        f'viewBox="0 0 {width:.0f} {height}" font-family="sans-serif" font-size="11">',
        f'<text x="{_PAD_L}" y="16" font-size="13">NDCG with 95% CI: the hits (@10) and what '
        f"was delivered within each budget ({escape(str(report['dataset']['name']))})</text>",
    ]
    for t in range(0, 11, 2):
        parts.append(
            f'<text x="{_PAD_L - 6}" y="{_y(t / 10) + 4:.1f}" text-anchor="end">{t / 10:.1f}</text>'
        )
    for panel in panels:
        parts += _panel(panel, variants)
    parts += [*_legend(variants, left), "</svg>"]
    return "\n".join(parts) + "\n"

"""A few SVG/HTML string builders for the interactive views.

The interactive timeline and tiling map are inline SVG inside an ipywidgets HTML widget: no
JavaScript, hover details come from each shape's <title> (the browser's tooltip), and every
shape carries data-* attributes so a browser test can find it.
"""

from __future__ import annotations

from html import escape


def esc(text: object) -> str:
    """HTML-escaped text (quotes too: safe inside attributes)."""
    return escape(str(text), quote=True)


def _attrs(data: dict[str, object]) -> str:
    return "".join(f' data-{k.replace("_", "-")}="{esc(v)}"' for k, v in data.items())


def svg_open(width: float, height: float, css_class: str, **data: object) -> str:
    """The opening <svg> tag, with an arrowhead marker definition."""
    return (f'<svg class="{css_class}" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
            f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
            f'style="font-family:sans-serif;font-size:10px"{_attrs(data)}>'
            '<defs><marker id="ascendlab-arrow" viewBox="0 0 6 6" refX="6" refY="3" '
            'markerWidth="5" markerHeight="5" orient="auto"><path d="M0,0 L6,3 L0,6 z" '
            'fill="#555"/></marker></defs>')


def rect(x: float, y: float, w: float, h: float, fill: str, title: str | None = None,
         opacity: float | None = None, stroke: str | None = None, **data: object) -> str:
    """A rectangle; `title` becomes its hover tooltip."""
    extra = f' fill-opacity="{opacity:.2f}"' if opacity is not None else ""
    if stroke:
        extra += f' stroke="{stroke}" stroke-width="0.6"'
    body = f"<title>{esc(title)}</title></rect>" if title else "</rect>"
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0.6):.1f}" height="{h:.1f}" '
            f'fill="{fill}"{extra}{_attrs(data)}>{body}')


def line(x1: float, y1: float, x2: float, y2: float, stroke: str, width: float = 0.8,
         arrow: bool = False, dash: str | None = None, title: str | None = None,
         **data: object) -> str:
    """A line, optionally ending in an arrowhead."""
    extra = ' marker-end="url(#ascendlab-arrow)"' if arrow else ""
    if dash:
        extra += f' stroke-dasharray="{dash}"'
    body = f"<title>{esc(title)}</title></line>" if title else "</line>"
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" '
            f'stroke-width="{width}"{extra}{_attrs(data)}>{body}')


def text(x: float, y: float, s: object, anchor: str = "start", fill: str = "#333",
         size: int | None = None, weight: str | None = None) -> str:
    """A text label."""
    extra = f' font-size="{size}"' if size else ""
    if weight:
        extra += f' font-weight="{weight}"'
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" fill="{fill}"{extra}>'
            f"{esc(s)}</text>")

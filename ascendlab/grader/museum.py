"""The museum: static HTML pages of every ACCEPTED submission on the leaderboard.

    ascendlab leaderboard --html DIR [CHALLENGE]

writes DIR/index.html and one DIR/<challenge>.html per challenge with every ACCEPTED entry
(every row, not only each user's best): user, chip, tier, modelled cycles and their ratio to
the roofline bound, the timeline of its performance case (the largest one) redrawn from the
stored trace with viz.timeline(run).figure() as DIR/<challenge>/<row id>.png, and its source,
HTML-escaped. Without matplotlib (the `viz` extra) the pages say so instead of drawing.
Rows stored under an old name (an alias) join their challenge's page.

Each page opens with the record to aim at: the challenge's spec record (Tiers.record, the
best known kernel under the current cost model, with the masters' note on why it is fast)
and its progression per chip: every entry that beat the best known cycles at its time, in
order of submission.
"""

from __future__ import annotations

import html
import importlib.util
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path

from .leaderboard import MAX_TRACE_EVENTS, Exhibit, Leaderboard

_CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left}
.entry{border-top:1px solid #ccc;margin-top:1.5em;padding-top:.5em}
.gold{color:#b8860b}.silver{color:#708090}.bronze{color:#8c5a2b}
pre{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:12px}
img{max-width:100%;border:1px solid #ddd}.note{color:#777}
.masters{background:#f4f1e8;padding:.6em 1em;margin:.5em 0}"""


def has_matplotlib() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def _canonical(name: str) -> tuple[str, str]:
    """(page name, title) of a stored challenge name: its challenge's spec name when it
    loads (aliases join their challenge), else the name itself."""
    from .challenge import load_challenge

    try:
        ch = load_challenge(name)
        return ch.spec.name, ch.spec.title
    except Exception:  # noqa: BLE001 - a challenge no longer installed still has its rows
        return name, name


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "_"


def _figure(ex: Exhibit, path: Path) -> str:
    """Draw the exhibit's timeline into `path`; returns "" or why it was not drawn."""
    if ex.trace is None:
        return (f"no trace was kept (recorded before the museum, or over "
                f"{MAX_TRACE_EVENTS:,} events)")
    if not has_matplotlib():
        return "matplotlib is not installed (pip install 'ascendlab[viz]'): no timeline drawn"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..viz import timeline

    try:
        fig = timeline(ex.run()).figure()
        fig.savefig(path, dpi=90, bbox_inches="tight")
        plt.close(fig)
    except Exception as e:  # noqa: BLE001 - one bad figure must not stop the museum
        return f"the timeline could not be drawn ({type(e).__name__}: {e})"
    return ""


def _entry(ex: Exhibit, img_dir: Path, rel: str) -> str:
    e = html.escape
    png = img_dir / f"{ex.id}.png"
    why = _figure(ex, png)
    pic = (f'<img src="{e(rel)}/{ex.id}.png" alt="timeline of entry {ex.id}">' if not why
           else f'<p class="note">{e(why)}</p>')
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(ex.submitted_at))
    ratio = ex.cycles / max(ex.bound_cycles, 1)
    return (f'<div class="entry" id="e{ex.id}"><h3>{e(ex.user)} — <span class="{e(ex.tier)}">'
            f"{e(ex.tier)}</span>, {ex.cycles:,} cycles on {e(ex.chip)}</h3>"
            f"<p>{ratio:.2f}x the roofline bound ({ex.bound_cycles:,} cycles); "
            f"{e(ex.submission)}, {when}; cost model {e(ex.model_version)}</p>{pic}"
            f"<details><summary>source</summary><pre>{e(ex.source or '(not kept)')}</pre>"
            f"</details></div>")


def _records(page: str, exhibits: list[Exhibit]) -> str:
    """The record section: the spec record and its note, and each chip's progression."""
    from ..analysis.cost import MODEL_VERSION
    from .challenge import load_challenge

    e = html.escape
    try:
        tiers = load_challenge(page).spec.tiers
    except Exception:  # noqa: BLE001 - a challenge no longer installed
        tiers = None
    ref = (tiers.record, tiers.holder or "reference") if tiers is not None and \
        tiers.record is not None and tiers.model == MODEL_VERSION else None
    out = ['<div class="records"><h2>Record</h2>']
    if ref is not None:
        out.append(f"<p>Best known kernel before the entries below: {ref[0]:,} cycles "
                   f"({e(ref[1])}, cost model {e(MODEL_VERSION)}). {e(tiers.rule())}.</p>")
        if tiers.note:
            out.append(f'<blockquote class="masters"><b>Why it is fast</b> (the masters\' '
                       f"note): {e(tiers.note)}</blockquote>")
    chips = sorted({x.chip for x in exhibits})
    for chip in chips:
        best = ref[0] if ref is not None else None
        steps = []
        for x in sorted((x for x in exhibits if x.chip == chip and
                         x.model_version == MODEL_VERSION), key=lambda x: (x.submitted_at, x.id)):
            if best is None or x.cycles < best:
                best = x.cycles
                when = time.strftime("%Y-%m-%d %H:%M", time.localtime(x.submitted_at))
                steps.append(f'<tr><td>{when}</td><td><a href="#e{x.id}">{e(x.user)}</a></td>'
                             f"<td>{x.cycles:,}</td>"
                             f"<td>{x.cycles / max(x.bound_cycles, 1):.2f}</td></tr>")
        head = (f"<tr><td>-</td><td>{e(ref[1])}</td><td>{ref[0]:,}</td><td></td></tr>"
                if ref is not None else "")
        out.append(f"<h3>{e(chip)}: record progression</h3><table><tr><th>when</th><th>who"
                   f"</th><th>cycles</th><th>x bound</th></tr>{head}{''.join(steps)}</table>"
                   + ("" if steps else "<p class=\"note\">no entry has beaten it yet</p>"))
    out.append("</div>")
    return "".join(out)


def write_museum(out: str | os.PathLike, lb: Leaderboard | None = None,
                 challenges: Sequence[str] | None = None) -> list[Path]:
    """Write the museum into `out`; returns the pages written (index first)."""
    lb = lb or Leaderboard()
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    groups: dict[str, tuple[str, list[str]]] = {}
    for name in lb.challenges():
        page, title = _canonical(name)
        groups.setdefault(page, (title, []))[1].append(name)
    if challenges:
        wanted = {_canonical(c)[0] for c in challenges}
        groups = {k: v for k, v in groups.items() if k in wanted}
    pages = []
    rows = []
    for page, (title, names) in sorted(groups.items()):
        exhibits = lb.exhibits(names)
        slug = _slug(page)
        img_dir = root / slug
        img_dir.mkdir(exist_ok=True)
        body = _records(page, exhibits) + "".join(_entry(ex, img_dir, slug) for ex in exhibits)
        path = root / f"{slug}.html"
        path.write_text(_page(f"{page}: {title}", f"<p>{len(exhibits)} accepted "
                              f"entr{'y' if len(exhibits) == 1 else 'ies'}, fastest first per "
                              f"chip. <a href=\"index.html\">all challenges</a></p>" + body))
        pages.append(path)
        rows.append(f'<tr><td><a href="{html.escape(slug)}.html">{html.escape(page)}</a></td>'
                    f"<td>{html.escape(title)}</td><td>{len(exhibits)}</td></tr>")
    note = "" if has_matplotlib() else (
        '<p class="note">matplotlib is not installed: the pages have no timelines '
        "(pip install 'ascendlab[viz]').</p>")
    index = root / "index.html"
    index.write_text(_page("ascendlab museum", note + "<table><tr><th>challenge</th><th>title"
                           "</th><th>accepted entries</th></tr>" + "".join(rows) + "</table>"
                           + ("" if rows else "<p>No accepted submissions yet.</p>")))
    return [index, *pages]


def _page(title: str, body: str) -> str:
    t = html.escape(title)
    return (f"<!doctype html><html><head><meta charset=\"utf-8\"><title>{t}</title><style>"
            f"{_CSS}</style></head><body><h1>{t}</h1>{body}</body></html>\n")


def render_note(paths: list[Path]) -> str:
    return f"museum written: {paths[0]} ({len(paths) - 1} challenge page(s))"


__all__ = ["has_matplotlib", "render_note", "write_museum"]

"""Fill the page templates from a leaderboard into the git-ignored ``site/docs/board/``.

Jinja2 autoescapes (contributor text with HTML in it shows as text) and is strict about
undefined names (a template typo fails the build). Each template gets one view-model, ``v``.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from arena_bot.core.markdown import fenced
from arena_bot.models.leaderboard import Leaderboard
from arena_bot.scoring.export import to_csv, to_json
from arena_bot.site import views
from arena_bot.site.history import SNAPSHOT, Snapshot
from arena_bot.site.source import BoardSource
from arena_bot.site.submission import SHELL, diff_html, shell_markdown

#: Where generated pages go, inside the MkDocs docs folder (git-ignored).
GENERATED = "board"


def environment(*, markdown: bool = True) -> jinja2.Environment:
    """The templates' environment; for pages Markdown renders (``*.md.j2``), every ``{{ }}``
    string is written as :func:`literal` text, for HTML ones it is HTML-escaped."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("arena_bot.site", "templates"),
        autoescape=True,
        finalize=_literal if markdown else None,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    # Called for every cell of every table: Python functions, not Jinja macros (a macro
    # call costs ten times as much, seconds on a big board).
    env.globals.update(slug=views.slug, num=num, interval=interval, words=words,
                       diff_html=diff_html)
    return env


#: What Markdown reads as syntax anywhere in a line (links, images, emphasis, code, table
#: cells; an ``_`` between letters or digits is no emphasis), and at the start of one
#: (headings, lists, rules, fences, admonitions, details).
_MD_INLINE = re.compile(r"[\\`*\[\]|]|(?<![^\W_])_|_(?![^\W_])")
_MD_LINE_START = re.compile(r"^([ \t]*)([-+#=!?~])|^([ \t]*\d+)([.)])(?=[ \t]|$)")


def literal(text: str) -> Markup:
    """``text`` shown as written on a page that Markdown renders, on one line (a heading, a
    table cell): HTML-escaped, line breaks flattened, and each character Markdown would read
    as syntax written as a character reference, which Python-Markdown keeps as text and the
    browser shows as the character. Contributor text (a tool's name) can then form no link,
    image, heading, list or table cell of its own."""
    flat = " ".join(str(text).splitlines())
    escaped = _MD_INLINE.sub(lambda m: f"&#{ord(m.group(0))};", str(escape(flat)))
    return Markup(_MD_LINE_START.sub(
        lambda m: (f"{m.group(1)}&#{ord(m.group(2))};" if m.group(2)
                   else f"{m.group(3)}&#{ord(m.group(4))};"), escaped))


def _literal(value: object) -> object:
    """Jinja's ``finalize``: every ``{{ }}`` string goes through :func:`literal`; markup
    the helpers made, and numbers, are written as they are."""
    return literal(value) if isinstance(value, str) and not isinstance(value, Markup) else value


_BREAKABLE = re.compile(r"\S*[-‐/]\S*")


def words(text: str) -> Markup:
    """Text for a cell that wraps: the browser may break lines between words but not at
    the hyphens or slashes inside one (a model id such as ``claude-sonnet-4-5`` stays
    whole)."""
    return Markup(_BREAKABLE.sub(lambda m: f'<span class="ar-nb">{m.group(0)}</span>',
                                 str(literal(text))))


def num(value: float | None, digits: int = 1) -> Markup:
    """A score as a table shows it; a muted dash when there is none."""
    if value is None:
        return Markup('<span class="ar-na">–</span>')
    return Markup(f"{value:.{digits}f}")


def interval(low: float | None, high: float | None) -> Markup:
    """A 95% interval, or "one run" when there is no spread to show."""
    if low is None or high is None:
        return Markup('<span class="ar-na">one run</span>')
    return Markup(f"{low:.1f}–{high:.1f}")


def methodology_view(board: Leaderboard) -> views.MethodologyView:
    """Every setting the board was scored with (its recorded arena.yaml, defaults included)
    and the method's fixed constants: generated, so the page cannot drift from the scores."""
    from arena_bot.core.config import DEFAULT_CONFIG, MEANINGS, ArenaConfig, flat_settings
    from arena_bot.scoring import components, core

    recorded = board.options.configuration
    config = ArenaConfig.model_validate(recorded) if recorded else DEFAULT_CONFIG
    rows: list[tuple[str, str, str]] = [
        (Markup("<code>{}</code>").format(key), json.dumps(value),
         MEANINGS.get(key.rsplit(".", 1)[-1], ""))
        for key, value in flat_settings(config)
    ]
    rows += [
        ("judge model used", board.options.judge_model or "none",
         "LLM judge for judged criteria in this build"),
        ("ROBUST_Z_SCALE", str(core.ROBUST_Z_SCALE), "scale of the modified z-score (fixed)"),
        ("ROBUST_MIN_VALUES", str(core.ROBUST_MIN_VALUES),
         "values needed for the robust check (fixed)"),
        ("MISSING_SCORE", str(components.MISSING_SCORE),
         "score of a metric nobody recorded (seed 002, fixed)"),
        ("SPEED_EXPONENT", str(components.SPEED_EXPONENT), "curvature of the speed score (fixed)"),
    ]
    weights = tuple(
        (t.task_id, str(t.weights.efficiency), str(t.weights.speed), str(t.weights.cost),
         str(t.weights.correctness), str(t.difficulty_multiplier))
        for t in board.tasks
    )
    return views.MethodologyView(rows=tuple(rows), weights=weights)


def nice_ticks(top: float, count: int = 5) -> list[float]:
    """Round tick values from 0 to at least ``top`` (steps of 1, 2, 2.5 or 5 × 10ⁿ)."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    n = math.ceil(top / step - 1e-9)
    return [round(i * step, 10) for i in range(n + 1)]


def _tick_text(value: float, unit: str) -> str:
    if unit == "USD":
        return f"${value:.3f}".rstrip("0").rstrip(".") if value else "$0"
    if value >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 1_000:
        return f"{value / 1_000:g}k"
    return f"{value:g}"


#: Approximate width of one character of a chart label (10 px sans-serif), for placing
#: labels so that they do not overlap.
CHAR_WIDTH = 6.6


# Charts are drawn here as static SVG rather than with a charting library: every label is a
# DOM element whose box the browser tests check for overlaps, the charts read without
# JavaScript, and they cost no script weight. board.js only links a hovered or focused
# point to its line in the key.
def scatter_svg(points: Sequence[views.ChartPoint], *, axis: str, ident: str) -> str:
    """Overall score against mean cost (``axis="cost"``) or tokens per run: ticks on both
    axes, the Pareto front joined, every point numbered in the key below and named on
    hover; names written beside the points where they fit without overlapping."""
    width, height = 640, 380
    left, right, top_pad, bottom = 56, 16, 16, 52
    values = [p.cost if axis == "cost" else p.tokens for p in points]
    unit = "USD" if axis == "cost" else "tokens"
    xticks = nice_ticks(max(values) or 1.0)
    yticks = [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
    span = xticks[-1] or 1.0
    def x(v: float) -> float:
        return left + (width - left - right) * v / span
    def y(v: float) -> float:
        return height - bottom - (height - bottom - top_pad) * v / 100
    title = ("Overall score against mean cost per run" if axis == "cost"
             else "Overall score against mean tokens per run")
    parts = [
        f'<svg class="ar-chart" id="{ident}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="{ident}-title"><title id="{ident}-title">{title}; the Pareto '
        'front (nobody both cheaper and better) is joined</title>',
    ]
    for t in yticks:
        parts.append(f'<line class="tick" x1="{left}" x2="{width - right}" y1="{y(t):.1f}" '
                     f'y2="{y(t):.1f}"/><text class="ticklabel" x="{left - 6}" '
                     f'y="{y(t) + 3:.1f}" text-anchor="end">{t:g}</text>')
    for t in xticks:
        parts.append(f'<line class="tick" x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{top_pad}" '
                     f'y2="{height - bottom}"/><text class="ticklabel" x="{x(t):.1f}" '
                     f'y="{height - bottom + 14}" text-anchor="middle">'
                     f'{_tick_text(t, unit)}</text>')
    parts += [
        f'<line class="axis" x1="{left}" y1="{height - bottom}" x2="{width - right}" '
        f'y2="{height - bottom}"/><line class="axis" x1="{left}" y1="{top_pad}" x2="{left}" '
        f'y2="{height - bottom}"/>',
        f'<text class="axislabel" x="{(left + width - right) / 2}" y="{height - 12}" '
        f'text-anchor="middle">mean {"cost per run (USD)" if axis == "cost" else "tokens per run"}'
        '</text>',
        f'<text class="axislabel" x="14" y="{(height - bottom) / 2}" '
        f'transform="rotate(-90 14 {(height - bottom) / 2})" text-anchor="middle">'
        'overall score (0–100)</text>',
    ]
    front = sorted(((v, p) for v, p in zip(values, points, strict=True) if _on(p, axis)),
                   key=lambda vp: vp[0])
    if len(front) > 1:
        path = " ".join(f"{x(v):.1f},{y(p.score):.1f}" for v, p in front)
        parts.append(f'<polyline class="front" points="{path}"/>')
    # Boxes already taken (points, tick labels): labels go where they overlap none.
    taken: list[tuple[float, float, float, float]] = [
        (x(v) - 5, y(p.score) - 5, x(v) + 5, y(p.score) + 5)
        for v, p in zip(values, points, strict=True)]
    taken += [(left - 40, y(t) - 8, left - 4, y(t) + 5) for t in yticks]
    taken += [(x(t) - 22, height - bottom + 4, x(t) + 22, height - bottom + 17) for t in xticks]
    order = sorted(range(len(points)), key=lambda i: (not _on(points[i], axis),
                                                       -points[i].score))
    labels: dict[int, str] = {}
    for i in order:
        px, py = x(values[i]), y(points[i].score)
        for text in (points[i].label, str(i + 1)):
            w = CHAR_WIDTH * len(text)
            for dx, dy, anchor in ((8, -4, "start"), (8, 10, "start"), (-8, -4, "end"),
                                   (-8, 10, "end"), (0, -9, "middle"), (0, 18, "middle")):
                x0 = px + dx - (w if anchor == "end" else w / 2 if anchor == "middle" else 0)
                box = (x0, py + dy - 9, x0 + w, py + dy + 2)
                inside = (box[0] >= left + 2 and box[2] <= width - right
                          and box[1] >= top_pad and box[3] <= height - bottom - 2)
                if inside and not any(_overlap(box, b) for b in taken):
                    taken.append(box)
                    labels[i] = (f'<text class="lbl" x="{px + dx:.1f}" y="{py + dy:.1f}" '
                                 f'text-anchor="{anchor}">{literal(text)}</text>')
                    break
            if i in labels:
                break
    for i, (v, p) in enumerate(zip(values, points, strict=True)):
        shown = (f"${v:.3f}" if axis == "cost" else f"{v:,.0f} tokens")
        parts.append(
            f'<circle class="{"pareto" if _on(p, axis) else "pt"}" data-n="{i + 1}" '
            f'cx="{x(v):.1f}" cy="{y(p.score):.1f}" r="5" tabindex="0"><title>{i + 1}. '
            f'{literal(p.label)}: {p.score:.1f} at {shown}</title></circle>')
    parts += [labels[i] for i in sorted(labels)]
    parts.append("</svg>")
    return "".join(parts)


def _on(point: views.ChartPoint, axis: str) -> bool:
    return point.pareto if axis == "cost" else point.pareto_tokens


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def chart_svg(points: Sequence[views.ChartPoint]) -> str:
    """Score against cost and against tokens (Pareto fronts joined), and the key that
    names every point by its number."""
    if not points:
        return '<p class="ar-empty">No recorded costs yet.</p>'
    key = "".join(
        f'<li><b>{i}.</b> {literal(p.label)}: {p.score:.1f} · ${p.cost:.3f} · '
        f'{p.tokens:,.0f} tokens{" · Pareto (cost)" if p.pareto else ""}'
        f'{" · Pareto (tokens)" if p.pareto_tokens else ""}</li>'
        for i, p in enumerate(points, start=1))
    return (f'<div class="ar-charts"><figure>{scatter_svg(points, axis="cost", ident="ar-cost")}'
            f'</figure><figure>{scatter_svg(points, axis="tokens", ident="ar-tokens")}</figure>'
            f'</div><ol class="ar-key" id="ar-chart-key">{key}</ol>')


#: Bins of the per-task score distribution: 0–10, 10–20, …, 90–100.
BINS = 10


def distribution_svg(scores: Sequence[float]) -> str:
    """How a task's overall scores spread: a static histogram, one bar per 10 points."""
    if not scores:
        return '<p class="ar-empty">No scored submissions yet.</p>'
    counts = [0] * BINS
    for score in scores:
        counts[min(BINS - 1, max(0, int(score // (100 / BINS))))] += 1
    width, height, pad = 640, 220, 36
    top = max(counts)
    step = (width - 2 * pad) / BINS
    parts = [
        f'<svg class="ar-chart ar-dist" viewBox="0 0 {width} {height}" role="img" '
        'aria-labelledby="ar-dist-title"><title id="ar-dist-title">How many submissions '
        'scored in each band of 10 points (overall score)</title>',
        f'<line class="axis" x1="{pad}" y1="{height - pad}" x2="{width - pad}" '
        f'y2="{height - pad}"/>',
        f'<text x="{width / 2}" y="{height - 6}" text-anchor="middle">overall score '
        f'(0–100); {len(scores)} scored, most in one band: {top}</text>',
    ]
    for i, n in enumerate(counts):
        h = (height - 2 * pad) * n / top
        low, high = i * 100 // BINS, (i + 1) * 100 // BINS
        x = pad + i * step
        parts.append(
            f'<rect class="bar" data-count="{n}" x="{x + 2:.1f}" y="{height - pad - h:.1f}" '
            f'width="{step - 4:.1f}" height="{h:.1f}"><title>{low}–{high}: {n} '
            f'submission{"" if n == 1 else "s"}</title></rect>'
        )
        if n:
            parts.append(f'<text x="{x + step / 2:.1f}" y="{height - pad - h - 4:.1f}" '
                         f'text-anchor="middle">{n}</text>')
        parts.append(f'<text x="{x:.1f}" y="{height - pad + 14}" text-anchor="middle">'
                     f'{low}</text>')
    parts.append(f'<text x="{width - pad}" y="{height - pad + 14}" text-anchor="middle">100'
                 '</text></svg>')
    return "".join(parts)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _example_submission(root: Path) -> Markup:
    found = sorted(root.glob("submissions/*/*/submission.yaml"))
    text = (found[0].read_text(encoding="utf-8").strip() if found
            else "# no sample submission in this checkout")
    return Markup(fenced(text, "yaml"))


@dataclass(frozen=True)
class RenderInputs:
    """Everything a build renders besides the board itself."""

    root: Path
    built_from: str
    updated: str
    #: This build's snapshot (published as ``board/snapshot.json``) and whether an earlier
    #: one existed to compare with.
    snapshot: Snapshot | None = None
    first: bool = True
    #: Entry key -> stored per-feature / merge results (task pages), when available.
    details: Mapping[str, views.EvaluationDetail] = field(default_factory=dict)


def render(source: BoardSource, docs: Path, extra: RenderInputs, *,
           raw_json: str | None = None) -> list[Path]:
    """Write every generated page and the downloads under ``docs/board/`` (emptied first, so
    removed pages do not linger); return them. The downloads are copies of the files the board
    was read from (re-serialising costs seconds for the same bytes), or ``raw_json``."""
    board = source.board
    out = docs / GENERATED
    if out.exists():
        shutil.rmtree(out)
    env = environment()
    written: list[Path] = []
    slugs = views.Slugs.of(board)

    def page(name: str, template: str, v: Any, **more: Any) -> None:
        _write(out / name, env.get_template(template).render(v=v, **more))
        written.append(out / name)

    home = views.home_view(board, built_from=extra.built_from, updated=extra.updated,
                           slugs=slugs)
    page("index.md", "home.md.j2", home, chart=chart_svg(home.points))
    for t in views.task_views(board, slugs=slugs, details=extra.details):
        page(f"tasks/{t.slug}.md", "task.md.j2", t, chart=distribution_svg(t.scores))
    for kind, folder in (("tool", "tools"), ("model", "models")):
        for g in views.group_views(board, kind, slugs=slugs):
            page(f"{folder}/{g.slug}.md", "group.md.j2", g)
    page("compare.md", "compare.md.j2", views.compare_view(board))
    page("changes.md", "changes.md.j2",
         views.changes_view(board, extra.snapshot, first=extra.first, slugs=slugs))
    page("pages.md", "pages.md.j2", views.index_view(board, slugs=slugs))
    page("methodology.md", "methodology.md.j2", methodology_view(board))
    page("submit.md", "submit.md.j2", None, example=_example_submission(extra.root))
    _write(out / "s" / f"{SHELL}.md", shell_markdown())
    json_bytes = _download(out / "leaderboard.json", source.json_file, raw_json,
                           lambda: to_json(board))
    csv_bytes = _download(out / "leaderboard.csv", source.csv_file, None, lambda: to_csv(board))
    _write(out / "leaderboard.schema.json",
           json.dumps(Leaderboard.model_json_schema(), indent=2, sort_keys=True))
    if extra.snapshot is not None:
        _write(out / SNAPSHOT, extra.snapshot.model_dump_json(indent=1) + "\n")
    page("data.md", "data.md.j2", views.DataView(
        json_bytes=json_bytes, csv_bytes=csv_bytes,
        entries=len(board.entries), digest=board.input_digest))
    assets = resources.files("arena_bot.site") / "assets"
    for name in ("board.js", "board.css"):
        _write(out / "assets" / name, (assets / name).read_text(encoding="utf-8"))
    return written


def _download(target: Path, original: Path | None, text: str | None,
              make: Callable[[], str]) -> int:
    """Place one download: a copy of its file, the text at hand, or freshly serialised."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if original is not None:
        shutil.copyfile(original, target)
    else:
        target.write_text(text if text is not None else make(), encoding="utf-8")
    return target.stat().st_size

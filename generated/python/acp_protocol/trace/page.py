# Copied by acp-codegen from templates/python/trace/page.py. Do not edit here:
# edit the source, then run `make generate`.

"""A recording as one self-contained HTML page (layer: report): `trace view FILE --html OUT`.

Inline CSS and a few lines of inline JS (the frames' search box), no fetch of anything. The
page: the counts, the problems (each linked to its frame), a timeline per session (each turn
with its prompt, its messages as text, its tool calls and plans as they evolved, its permission
requests and cancels, as the client-state reducer saw them), the request latencies by method,
then every frame, searchable, each with the anchor `fN` the rest links to. Every text is
escaped (`html.escape`): frames and stderr are a program's untrusted output. The frames are
read a second time and written as they are read: the page never holds them all.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from html import escape
from pathlib import Path
from typing import IO, Any

from .page_style import BASE_STYLE, frame_line
from .view_model import Problem, Request, Summary
from .view_read import Recording
from .view_turns import link, session_section

STYLE = BASE_STYLE + """
h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
.counts span{font-weight:bold}
a.f{font:12px ui-monospace,monospace;color:#0969da;text-decoration:none}
ul.problems li{color:#cf222e}ul.problems .level{font-weight:bold}
ol.timeline{list-style:none;padding-left:0}
ol.timeline>li{border-left:4px solid #ccc;margin:.4em 0;padding:.1em .6em}
li.turn.end_turn{border-color:#1a7f37}li.turn.cancelled{border-color:#9a6700}
li.turn.unfinished,li.turn.error{border-color:#cf222e}
.bar{position:relative;height:6px;background:#eee;margin:.2em 0}
.bar span{position:absolute;top:0;height:6px;background:#0969da;min-width:2px}
.message{white-space:pre-wrap;margin:.2em 0 .2em 1em}
.message.agentThought{color:#666;font-style:italic}
.prompt{font-weight:bold}.status{font-weight:bold}
table.latency{border-collapse:collapse}
table.latency td,table.latency th{border:1px solid #ccc;padding:.15em .6em;text-align:right}
table.latency td:first-child,table.latency th:first-child{text-align:left}
#frames .frame{font:12px/1.4 ui-monospace,monospace;white-space:pre-wrap;word-break:break-all;
border-bottom:1px solid #f0f0f0;padding:.1em 0}
#frames .frame.sent{background:#f6f8fa}#frames .frame.problem{background:#ffebe9}
#frames .frame:target{outline:2px solid #0969da}
#search{width:30em;font-size:1em}
"""

SCRIPT = """
const box = document.getElementById('search'), shown = document.getElementById('search-count');
const frames = Array.from(document.querySelectorAll('#frames .frame'));
function search() {
  const term = box.value.toLowerCase(); let found = 0;
  for (const frame of frames) {
    const hit = !term || frame.textContent.toLowerCase().includes(term);
    frame.hidden = !hit; if (hit) found++;
  }
  shown.textContent = found + ' of ' + frames.length + ' frames';
}
box.addEventListener('input', search);
window.addEventListener('hashchange', () => {
  const target = document.getElementById(location.hash.slice(1));
  if (target && target.hidden) { box.value = ''; search(); target.scrollIntoView(); }
});
"""


def problem_item(problem: Problem) -> str:
    label = (
        f'<span class="level">{escape(problem.level or "")}</span> '
        f"<code>{escape(problem.case)}</code>: "
        if problem.case
        else f"{escape(problem.kind)}: "
    )
    quote = f"<blockquote>{escape(problem.quote)}</blockquote>" if problem.quote else ""
    return f"<li>{link(problem.frame)} {label}{escape(problem.text)}{quote}</li>"


def latency_table(summary: Summary) -> str:
    """Each method's requests (→ the client's, ← the agent's): how many were answered, the
    median and the slowest (linked), and those never answered (linked)."""
    by_method: dict[str, list[float]] = {}
    slowest: dict[str, Request] = {}
    unanswered: dict[str, list[Request]] = {}
    for request in summary.requests:
        name = ("→ " if request.dir == "sent" else "← ") + request.method
        latency = request.latency
        if latency is None:
            unanswered.setdefault(name, []).append(request)
            continue
        by_method.setdefault(name, []).append(latency)
        if name not in slowest or latency > (slowest[name].latency or 0.0):
            slowest[name] = request
    rows = [
        "<tr><th>request</th><th>answered</th><th>median s</th><th>max s</th>"
        "<th>never answered</th></tr>"
    ]
    for name in sorted(set(by_method) | set(unanswered), key=lambda n: n[2:]):
        values = by_method.get(name, [])
        median = f"{statistics.median(values):.3f}" if values else "—"
        most = f"{max(values):.3f} {link(slowest[name].index)}" if values else "—"
        never = unanswered.get(name, [])
        rows.append(
            f"<tr><td><code>{escape(name)}</code></td><td>{len(values)}</td><td>{median}</td>"
            f'<td>{most}</td><td class="{"bad" if never else ""}">{len(never)} '
            f'{" ".join(link(r.index) for r in never[:20])}</td></tr>'
        )
    return f'<table class="latency">{"".join(rows)}</table>'


def error_item(request: Request) -> str:
    error = request.error or {}
    return (
        f"<li>{link(request.answer)} <code>{escape(request.method)}</code> "
        f"{link(request.index)}: error {escape(str(error.get('code')))} "
        f"{escape(str(error.get('message', '')))}</li>"
    )


def head(recording: Recording, summary: Summary, problems: list[Problem]) -> Iterable[str]:
    program = " ".join(recording.program) or "?"
    counts = {
        "sessions": len(summary.sessions),
        "turns": len(summary.turns),
        "tools": len(summary.tools),
        "permissions": len(summary.permissions),
        "cancels": len(summary.cancels),
        "frames": summary.frames,
        "problems": len(problems),
    }
    names = {"tools": "tool calls", "permissions": "permission requests"}
    yield "<!DOCTYPE html>"
    yield '<html lang="en"><head><meta charset="utf-8">'
    yield f"<title>ACP recording: {escape(program)}</title>"
    yield f"<style>{STYLE}</style></head><body>"
    yield "<h1>ACP recording</h1><dl>"
    yield f"<dt>file</dt><dd><code>{escape(str(recording.path))}</code></dd>"
    yield f'<dt>program</dt><dd><code class="program">{escape(program)}</code></dd>'
    if recording.case:
        yield f"<dt>conformance case</dt><dd><code>{escape(recording.case)}</code></dd>"
    yield f"<dt>edition</dt><dd>ACP v{summary.edition}</dd>"
    if recording.started:
        yield f"<dt>started</dt><dd>{escape(recording.started)}</dd>"
    ended = "—" if recording.exit is None else str(recording.exit)
    yield f"<dt>exit status</dt><dd>{escape(ended)}; {recording.stderr} stderr lines</dd></dl>"
    parts = ", ".join(
        f'<span id="count-{key}">{value}</span> {names.get(key, key)}'
        for key, value in counts.items()
    )
    yield f'<p class="counts">{parts} ({summary.sent} sent, {summary.received} received)</p>'
    yield f'<h2 id="problems">Problems ({len(problems)})</h2>'
    if problems:
        yield '<ul class="problems">' + "".join(problem_item(p) for p in problems) + "</ul>"
    else:
        yield '<p class="ok">none found</p>'
    for number, session in enumerate(summary.sessions.values()):
        yield session_section(summary, session, number)
    yield '<h2 id="latency">Request latencies</h2>'
    yield latency_table(summary)
    errors = [r for r in summary.requests if r.error is not None]
    yield f'<h2 id="errors">Error answers (<span id="count-errors">{len(errors)}</span>)</h2>'
    if errors:
        yield '<ul class="errors">' + "".join(error_item(r) for r in errors) + "</ul>"
    yield '<h2 id="frame-list">Frames</h2>'
    yield (
        '<p><input id="search" type="search" placeholder="search the frames" '
        f'aria-label="search the frames"> <span id="search-count">{summary.frames} of '
        f"{summary.frames} frames</span>; → sent to the agent, ← received from it</p>"
    )


def frame_lines(recording: Recording, flagged: set[int]) -> Iterable[str]:
    for frame in recording.frames():
        kind = f"frame {frame.dir}" + (" problem" if frame.index in flagged else "")
        text = escape(frame_line(frame.t, frame.dir, frame.text))
        yield f'<div class="{kind}" id="f{frame.index}">{link(frame.index)} {text}</div>'


def write_page(out: Path, recording: Recording, summary: Summary, problems: list[Problem]) -> None:
    """Write the page to `out` (UTF-8); the frames are read again from the recording."""
    flagged = {p.frame for p in problems if p.frame is not None}
    with out.open("w", encoding="utf-8") as page:
        write_lines(page, head(recording, summary, problems))
        page.write('<div id="frames">\n')
        write_lines(page, frame_lines(recording, flagged))
        page.write("</div>\n")
        page.write(
            '<p class="footer">Written by <code>python -m acp_protocol.trace view</code>; the '
            "recording format is described in the package's docs/trace.md.</p>\n"
        )
        page.write(f"<script>{SCRIPT}</script>\n</body></html>\n")


def write_lines(page: IO[str], lines: Iterable[Any]) -> None:
    for line in lines:
        page.write(line)
        page.write("\n")

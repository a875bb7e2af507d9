# Copied by acp-codegen from templates/python/conformance/page.py. Do not edit here:
# edit the source, then run `make generate`.

"""The HTML report (layer: report): `--html FILE`, one self-contained page a person can open
and share: inline CSS, three lines of inline JS (a "failures only" switch), no fetch of anything.

It is made from the traces (`report.trace`, the same dicts `--trace` writes): the program's
command, the edition, the date, the summary by level and verdict, then every case with its
status, level, id, title, reason, the quote and where it is said, and, on failure, the frames
exchanged. Every text on the page is escaped (`html.escape`): frames and stderr are the
program's untrusted output.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape
from typing import Any

from ..trace.page_style import BASE_STYLE, frame_text
from .cases import LEVELS
from .report import summary, trace
from .runner import Result
from .stopping import Stop

PAGE_FRAMES = 200
"""Frames shown under a failure: the last ones (the trace has them all)."""

STYLE = BASE_STYLE + """
table.summary{border-collapse:collapse;margin:1em 0}
table.summary td,table.summary th{border:1px solid #ccc;padding:.2em .7em;text-align:right}
.verdict{font-weight:bold}.verdict.ok{color:#1a7f37}.verdict.bad{color:#cf222e}
details.case{border-left:4px solid #ccc;margin:.3em 0;padding:.1em .6em}
details.pass{border-color:#1a7f37}details.fail{border-color:#cf222e}details.skip{border-color:#9a6700}
.status{display:inline-block;width:3.2em;font-weight:bold}
.pass .status{color:#1a7f37}.fail .status{color:#cf222e}.skip .status{color:#9a6700}
.level{display:inline-block;width:7em;color:#555}.reason{color:#555}
body.failures-only details.pass,body.failures-only details.skip{display:none}
"""

SCRIPT = (
    "document.getElementById('failures-only').addEventListener('change',"
    " e => document.body.classList.toggle('failures-only', e.target.checked));"
)


def case_section(record: dict[str, Any]) -> str:
    """One case: a line (status, level, id, reason) that opens on what it checks."""
    status = record["outcome"]
    head = (
        f'<span class="status">{status.upper()}</span>'
        f'<span class="level">{escape(record["level"])}</span>'
        f'<code class="id">{escape(record["caseId"])}</code>'
    )
    if record["reason"]:
        head += f' <span class="reason">{escape(record["reason"])}</span>'
    quote = record["quote"]
    body = [
        f'<p class="title">{escape(record["title"])}</p>',
        f'<blockquote class="quote">{escape(quote["text"])}</blockquote>',
        f'<p class="source">said in <code>{escape(quote["source"])}</code>'
        + (
            f'; requires <code>{escape(", ".join(record["requires"]))}</code>'
            if record["requires"]
            else ""
        )
        + f'; {record["seconds"]:.3f} s</p>',
    ]
    if record["afterCases"]:
        body.append(
            f'<p class="after">ran after {len(record["afterCases"])} cases on the same program</p>'
        )
    if status == "fail":
        frames = record["frames"]
        shown = frames[-PAGE_FRAMES:]
        label = (
            f"frames (the last {len(shown)} of {len(frames)})"
            if len(shown) < len(frames)
            else f"frames ({len(frames)})"
        )
        lines = "\n".join(escape(frame_text(f)) for f in shown)
        body.append(f'<p>{label}, → sent, ← received:</p><pre class="frames">{lines}</pre>')
        if record["details"]:
            findings = "\n".join(escape(d) for d in record["details"])
            body.append(
                f'<p>every finding ({len(record["details"])}):</p>'
                f'<pre class="details">{findings}</pre>'
            )
        if record["stderr"]:
            body.append(f'<p>stderr:</p><pre class="stderr">{escape(record["stderr"])}</pre>')
    opened = " open" if status == "fail" else ""
    return (
        f'<details class="case {status}" id="{escape(record["caseId"])}"{opened}>'
        f"<summary>{head}</summary>{''.join(body)}</details>"
    )


def summary_table(records: Sequence[dict[str, Any]]) -> str:
    rows = ["<tr><th>level</th><th>pass</th><th>fail</th><th>skip</th></tr>"]
    for level in LEVELS:
        counts = [
            sum(1 for r in records if r["level"] == level and r["outcome"] == s)
            for s in ("pass", "fail", "skip")
        ]
        cells = "".join(f"<td>{n}</td>" for n in counts)
        rows.append(f'<tr><th style="text-align:left">{level}</th>{cells}</tr>')
    return f'<table class="summary">{"".join(rows)}</table>'


def html_page(
    results: Sequence[Result],
    seconds: float,
    protocol: str,
    source: str,
    command: Sequence[str],
    when: datetime,
    stop: Stop | None = None,
    total: int | None = None,
) -> str:
    """The whole page, as text (UTF-8 when written)."""
    records = [trace(result, protocol, command) for result in results]
    *counts, verdict = summary(results, seconds, stop, total)
    notes = counts[len(LEVELS) :]  # the cases not judged, why the run stopped
    good = not any(r["level"] == "MUST" and r["outcome"] == "fail" for r in records)
    good = good and not (stop is not None and stop.must)
    program = " ".join(command)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>ACP conformance: {escape(program)}</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>ACP conformance report</h1>",
        "<dl>",
        f'<dt>program</dt><dd><code class="program">{escape(program)}</code></dd>',
        f"<dt>edition</dt><dd>ACP {escape(protocol)} (<code>{escape(source)}</code>)</dd>",
        f"<dt>date</dt><dd>{escape(when.isoformat(timespec='seconds'))}</dd>",
        "</dl>",
        summary_table(records),
        *(f'<p class="note">{escape(note)}</p>' for note in notes),
        f'<p class="verdict {"ok" if good else "bad"}">{escape(verdict)}</p>',
        '<p><label><input type="checkbox" id="failures-only"> failures only</label></p>',
        *(case_section(record) for record in records),
        '<p class="footer">Written by <code>python -m acp_protocol.conformance</code>; the '
        "levels, cases and trace format are described in the package's docs/conformance.md.</p>",
        f"<script>{SCRIPT}</script>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"

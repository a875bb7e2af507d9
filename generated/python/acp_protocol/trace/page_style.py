# Copied by acp-codegen from templates/python/trace/page_style.py. Do not edit here:
# edit the source, then run `make generate`.

"""What the two HTML pages share (layer: report): the conformance suite's report
(`conformance.page`) and a recording's page (`trace.page`) look alike and show a frame alike.
"""

from __future__ import annotations

import json
from typing import Any

FRAME_CHARS = 4000
"""Characters of one frame shown on a page (a 40 MB frame would make a page nobody opens)."""

BASE_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:75em;padding:0 1em;color:#222}
h1{font-size:1.4em}code,pre{font:12px/1.4 ui-monospace,monospace}
blockquote{margin:.4em 0;padding:.2em .8em;background:#f6f8fa;border-left:3px solid #aaa}
pre{background:#f6f8fa;padding:.5em;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.ok{color:#1a7f37}.bad{color:#cf222e}.warn{color:#9a6700}
"""


def clipped(body: str) -> str:
    """`body`, cut at FRAME_CHARS with a note of how much was left out."""
    if len(body) > FRAME_CHARS:
        return body[:FRAME_CHARS] + f"… ({len(body) - FRAME_CHARS} more characters)"
    return body


def frame_line(t: float, direction: str, body: str) -> str:
    """One frame as a line: its time, its direction (→ sent, ← received), its text."""
    arrow = "→" if direction == "sent" else "←"
    return f"{t:8.3f} {arrow} {clipped(body)}"


def frame_text(frame: dict[str, Any]) -> str:
    """A frame object of a trace (`{"t", "dir", "json" | "raw"}`) as a line."""
    body = json.dumps(frame["json"], ensure_ascii=False) if "json" in frame else frame["raw"]
    return frame_line(frame["t"], frame["dir"], body)

# Copied by acp-codegen from templates/python/trace/view_read.py. Do not edit here:
# edit the source, then run `make generate`.

"""Reading a recording for `trace view` (layer: data; tolerant where `frames.read_frames` is
strict): a line that cannot be read is one warning naming FILE:LINE and the rest is still read.

Two inputs: a recording (`frames`: JSON Lines, the header first) and a conformance case trace
(docs/conformance.md, `--trace DIR`: one JSON object whose `frames` are the same frame objects).
A file that is neither is a `TraceError` naming its first line. Frames are numbered from 0 in
order (`#N` on the terminal, the anchor `fN` on the page); `line` is the file's line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .frames import Ends, TraceError


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame: `message` its JSON-RPC object (None when it is not one), `text` what it was
    on the wire as far as a reader cares (its JSON, or its raw text)."""

    index: int
    line: int
    t: float
    dir: str
    value: Any
    raw: str | None

    @property
    def message(self) -> dict[str, Any] | None:
        return self.value if self.raw is None and type(self.value) is dict else None

    @property
    def text(self) -> str:
        if self.raw is not None:
            return self.raw
        return json.dumps(self.value, ensure_ascii=False)


@dataclass
class Recording:
    """A recording being read: `frames()` yields its frames; the header, stderr lines, exit
    status and the warnings of the lines skipped are known once the frames are read."""

    path: Path
    warn: Callable[[str], None] = lambda line: None
    program: list[str] = field(default_factory=list)
    started: str = ""
    stderr: int = 0
    exit: int | None = None
    input_closed: int | None = None
    """How many frames there were when the editor closed the agent's input while the agent was
    there (`frames.Ends`)."""
    warnings: list[str] = field(default_factory=list)
    case: str | None = None
    """The case id, when the file is a conformance case trace."""
    _warned: int = 0
    _ends: Ends = field(default_factory=Ends)

    def _warning(self, number: int, reason: str) -> None:
        line = f"{self.path}:{number}: {reason}; line skipped"
        self.warnings.append(line)
        if number > self._warned:  # said once, however often the frames are read
            self._warned = number
            self.warn(line)

    def frames(self) -> Iterator[Frame]:
        self.warnings.clear()
        self.stderr = 0
        self._ends = Ends()
        with self.path.open(encoding="utf-8", errors="replace") as lines:
            numbered = enumerate(lines, 1)
            first, start = "", 1
            for number, first in numbered:
                if first.strip():
                    start = number
                    break
            if not first.strip():
                raise TraceError(f"{self.path}:1: empty, not an ACP recording")
            try:
                head = json.loads(first)
            except ValueError:
                head = None
            if head is None and first.lstrip().startswith("{"):
                lines.seek(0)
                yield from self._case(lines.read())
                return
            if not isinstance(head, dict) or not ("acpTrace" in head or "dir" in head):
                raise TraceError(
                    f"{self.path}:{start}: not an ACP recording (its first line is not the header "
                    '{"acpTrace": 1, …} nor a frame)'
                )
            self.program = [str(p) for p in head.get("program", [])]
            self.started = str(head.get("started", ""))
            index = 0
            if "dir" in head:
                frame = self._frame(head, 0, start)
                if frame is not None:
                    yield frame
                    index = 1
            for number, line in numbered:
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError as error:
                    ended = "" if line.endswith("\n") else " (the last line, cut short)"
                    self._warning(number, f"not JSON{ended}: {error}")
                    continue
                frame = self._frame(record, index, number)
                if frame is not None:
                    yield frame
                    index += 1

    def _frame(self, record: Any, index: int, number: int) -> Frame | None:
        if not isinstance(record, dict):
            self._warning(number, "not an object of the recording format")
            return None
        if "dir" not in record:
            if "stderr" in record:
                self.stderr += 1
            elif self._ends.event(record, index):
                self.exit, self.input_closed = self._ends.exit_status, self._ends.input_closed
            else:
                self._warning(number, "neither a frame, stderr, an end nor the exit")
            return None
        t = record.get("t")
        if record["dir"] not in ("sent", "received") or not isinstance(t, (int, float)):
            self._warning(number, f"/dir is {record['dir']!r}, /t is {t!r}")
            return None
        if "json" in record:
            return Frame(index, number, t, record["dir"], record["json"], None)
        return Frame(index, number, t, record["dir"], None, str(record.get("raw", "")))

    def _case(self, text: str) -> Iterator[Frame]:
        """A conformance case trace: its frames, its program."""
        try:
            case = json.loads(text)
        except ValueError as error:
            raise TraceError(
                f"{self.path}:{getattr(error, 'lineno', 1)}: not an ACP recording ({error})"
            ) from None
        if not isinstance(case, dict) or not isinstance(case.get("frames"), list):
            raise TraceError(f"{self.path}:1: not an ACP recording nor a conformance case trace")
        self.case = str(case.get("caseId", ""))
        self.program = [str(p) for p in case.get("program", [])]
        self.stderr = len(str(case.get("stderr", "")).splitlines())
        index = 0
        for record in case["frames"]:
            frame = self._frame(record, index, 1)
            if frame is not None:
                yield frame
                index += 1

# Copied by acp-codegen from templates/python/trace/frames.py. Do not edit here:
# edit the source, then run `make generate`.

"""The recording format (layer: data). A recording is JSON Lines: the first line is the header
`{"acpTrace": 1, "program": [...], "started": ISO-8601}`; then one object per event, in order:

- a frame: `{"t": SECONDS, "dir": "sent" | "received", "json": VALUE}`, or `"raw": TEXT` instead
  of `json` when the line is not JSON (bytes that are not UTF-8 as `hex:…`). `sent` is toward
  the agent (what the editor wrote), `received` what the agent wrote, as in the conformance
  suite's traces; the recorder adds `"end"` before the line when a newline alone did not end
  it (`"\r\n"`; `""`: the stream's last line), and `"line"`, the line as it came, when its
  `json` had to be encoded again (a carriage return between its tokens);
- a line the agent wrote on stderr: `{"t": SECONDS, "stderr": TEXT}`;
- (format 2) the end of a side: `{"t": SECONDS, "eof": "sent"}` when the editor closed the
  agent's input (the recorder read the end of its stdin, before it closed the agent's), and
  `{"t": SECONDS, "eof": "received"}` when the agent ended its output;
- the agent's exit: `{"t": SECONDS, "exit": STATUS}` (a negative status is the signal that ended
  it, format 2 adds its name: `"signal": "SIGKILL"`).

`t` counts seconds since the recording started. Format 1 (no `eof`, the exit last) reads alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

FORMAT_VERSION = 2
"""2: the `eof` events and the exit's `signal`."""


@dataclass(frozen=True, slots=True)
class RecordedFrame:
    """One line of the conversation: `value` is its JSON, or None with `raw` its text."""

    t: float
    dir: Literal["sent", "received"]
    value: Any
    raw: str | None = None

    @property
    def message(self) -> dict[str, Any] | None:
        """The frame as a JSON-RPC message (a JSON object), or None."""
        return self.value if self.raw is None and type(self.value) is dict else None


def frame_object(t: float, direction: str, line: bytes) -> dict[str, Any]:
    """The recorded form of one line (without its newline)."""
    text = raw_text(line)
    record: dict[str, Any] = {"t": round(t, 4), "dir": direction}
    if not text.startswith("hex:"):
        try:
            record["json"] = json.loads(text)
            return record
        except ValueError:
            pass
    record["raw"] = text
    return record


def raw_text(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return "hex:" + line.hex()


@dataclass(slots=True)
class Ends:
    """How the conversation ended, as a recording's events tell it (`event`, in order)."""

    exit_status: int | None = None
    """The agent's exit status, where the recording saw it."""
    input_closed: int | None = None
    """How many frames there were when the editor closed the agent's input, where it did so
    while the agent was there (its output open, not exited); else None: the agent died with
    its input open, or the recording does not say (format 1)."""
    _agent_gone: bool = False

    def event(self, record: dict[str, Any], frames: int) -> bool:
        """Take `record` (not a frame), seen after `frames` frames: whether it is an end."""
        if "exit" in record:
            self.exit_status = record["exit"] if type(record["exit"]) is int else None
            self._agent_gone = True
            return True
        if record.get("eof") == "received":
            self._agent_gone = True
            return True
        if record.get("eof") == "sent":
            if not self._agent_gone and self.input_closed is None:
                self.input_closed = frames
            return True
        return False


class TraceError(Exception):
    """A recording that cannot be read: the message names the file and line."""


def read_frames(path: Path) -> Iterator[RecordedFrame]:
    """The frames of a recording, in order (stderr lines and the header left out)."""
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as error:
                raise TraceError(f"{path}:{number}: not JSON ({error})") from None
            if not isinstance(record, dict) or "dir" not in record:
                continue
            if record["dir"] not in ("sent", "received"):
                raise TraceError(f"{path}:{number}: /dir is {record['dir']!r}")
            if "json" in record:
                yield RecordedFrame(record["t"], record["dir"], record["json"])
            else:
                yield RecordedFrame(record["t"], record["dir"], None, str(record.get("raw", "")))


def replayed(path: Path) -> dict[str, bytes]:
    """The bytes each side wrote, as the recorder at `path` saw them pass (`sent`: what the
    editor wrote to the agent; `received`: what the agent wrote), rebuilt from the recording
    alone: each frame's line (`json` as it came: the recorder writes it as the record's last
    member; `line` where the JSON was encoded again; `raw` its text or `hex:` bytes) and what
    ended it (`end`; a newline where there is none). A recording a program made of its own
    connection (`ACP_TRACE`) encodes JSON again and leaves blank lines out: its replay is its
    messages, not its bytes."""
    wire = {"sent": bytearray(), "received": bytearray()}
    with path.open("rb") as lines:
        for number, text in enumerate(lines, 1):
            text = text.rstrip(b"\n")
            try:
                record = json.loads(text)
            except ValueError as error:
                raise TraceError(f"{path}:{number}: not JSON ({error})") from None
            if not isinstance(record, dict) or record.get("dir") not in wire:
                continue
            exact = record.get("line", record.get("raw"))
            if isinstance(exact, str):
                line = bytes.fromhex(exact[4:]) if exact.startswith("hex:") else exact.encode()
            else:
                line = text[text.index(b'"json":') + len(b'"json":') : -1]
            wire[record["dir"]] += line + str(record.get("end", "\n")).encode()
    return {direction: bytes(data) for direction, data in wire.items()}

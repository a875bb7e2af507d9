"""Recordings other tools write, read as ours (layer: data): `trace check --from FORMAT` and
`trace import --from FORMAT FILE --out OUT`.

- `acp`: our own recording (acp_protocol.trace.frames), with the agent's exit status; or a
  conformance case trace (`python -m acp_protocol.conformance … --trace DIR`: one JSON object,
  its `frames` the same frame objects), read as a recording of the program the suite tested:
  `side` says which (a `client.` case's trace holds the suite's agent as `sent`: its directions
  are turned round), `edition` is the case's `protocol` (an envelope case run after others on
  the same agent has no `initialize` of its own);
- `rust-sdk`: the trace the official Rust SDK's conductor writes (`agent-client-protocol-conductor
  --trace FILE`, read by its `agent-client-protocol-trace-viewer`): JSON Lines of
  `{"type": "request" | "response" | "notification", "ts", "from", "to", "protocol", …}`,
  a request `{id, method, params}`, a response `{id, is_error, payload}` (the result or the
  error object; newer conductors add `error_domain`), a notification `{method, params}`;
  components named `Client`, `Proxy(N)`, `Agent`. The frames between two components are kept
  (`--between`, default `Client Agent`), MCP-over-ACP events (and their responses) left out; a
  response's JSON-RPC form is rebuilt from `is_error`. The conductor logs a response only when
  it matched a request, and no line that is not a message: what such a trace cannot show
  (an answer to a notification, a wrong id, a log line on stdout) is not judged from it;
- `lines`: a plain JSON-RPC line log, one message a line, each after a direction marker:
  `-->`, `>` or `→` for what the client sent to the agent, `<--`, `<` or `←` for what the agent
  sent; an optional time before the marker (seconds, or an ISO-8601 timestamp; a line without
  one keeps the time of the line before, 0 at first); anything after the marker that is not
  JSON is kept as a raw line; lines with no marker are left out.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .frames import FORMAT_VERSION, Ends, RecordedFrame, TraceError

FORMATS = ("acp", "rust-sdk", "lines")
LINE = re.compile(
    r"^\s*(?:(?P<time>[0-9][0-9:.TZ+-]*)\s+)?(?P<marker>-->|<--|>|<|→|←)\s?(?P<rest>.*)$"
)
Direction = Literal["sent", "received"]
SENT_MARKERS = frozenset({"-->", ">", "→"})


@dataclass(slots=True)
class Source:
    """A log being read: `frames()` yields its frames one at a time (nothing is held); what
    only its end tells (`exit_status`, `skipped`) is there once they are all read."""

    path: Path
    format: str = "acp"
    between: tuple[str, str] = ("Client", "Agent")
    exit_status: int | None = None
    """The agent's exit status, where the recording saw it."""
    input_closed: int | None = None
    """How many frames there were when the editor closed the agent's input while the agent was
    there (`frames.Ends`), where the source says."""
    skipped: int = 0
    """Events or lines of the source that are not frames of the conversation."""
    started: str | None = None
    """When the conversation began (ISO-8601), where the source says."""
    edition: str | None = None
    """The edition the source names (a case trace's `protocol`), if any."""
    side: Literal["agent", "client"] | None = None
    """The program under test, when the source is the suite's case trace: only its side is
    judged (the suite breaks rules on its own side on purpose); None: both sides."""
    case: str | None = None
    """A case trace's case id and outcome (`caseId`, `outcome`)."""

    def frames(self) -> Iterator[RecordedFrame]:
        if self.format == "rust-sdk":
            return _rust_sdk(self)
        if self.format == "lines":
            return _lines(self)
        return _ours(self)


@dataclass(frozen=True, slots=True)
class Loaded:
    frames: list[RecordedFrame]
    exit_status: int | None = None
    skipped: int = 0
    started: str | None = None
    input_closed: int | None = None


def load(path: Path, source: str = "acp", between: tuple[str, str] = ("Client", "Agent")) -> Loaded:
    """The conversation `path` holds, in the `source` format, read whole."""
    reading = Source(path, source, between)
    frames = list(reading.frames())
    return Loaded(
        frames, reading.exit_status, reading.skipped, reading.started, reading.input_closed
    )


def _records(path: Path) -> Iterator[tuple[int, Any]]:
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except ValueError as error:
                raise TraceError(f"{path}:{number}: not JSON ({error})") from None


def _ours(source: Source) -> Iterator[RecordedFrame]:
    path = source.path
    if _is_case_trace(path):
        yield from _case(source)
        return
    ends, count = Ends(), 0
    for number, record in _records(path):
        if not isinstance(record, dict):
            raise TraceError(f"{path}:{number}: not a JSON object")
        if "dir" not in record and ends.event(record, count):
            source.exit_status, source.input_closed = ends.exit_status, ends.input_closed
        if "started" in record and isinstance(record["started"], str):
            source.started = record["started"]
        if "dir" not in record:
            continue
        if record["dir"] not in ("sent", "received"):
            raise TraceError(f"{path}:{number}: /dir is {record['dir']!r}")
        t = float(record.get("t", 0.0))
        direction: Direction = "sent" if record["dir"] == "sent" else "received"
        count += 1
        if "json" in record:
            yield RecordedFrame(t, direction, record["json"])
        else:
            yield RecordedFrame(t, direction, None, str(record.get("raw", "")))


def _is_case_trace(path: Path) -> bool:
    """A conformance case trace is one JSON object over many lines: its first line is not a
    JSON value of its own, as a recording's header or frame is."""
    with path.open(encoding="utf-8") as lines:
        first = next((line for line in lines if line.strip()), "")
    try:
        json.loads(first)
    except ValueError:
        return first.lstrip().startswith("{")
    return False


def _case(source: Source) -> Iterator[RecordedFrame]:
    """A conformance case trace's frames, as a recording of the program the suite tested."""
    path = source.path
    try:
        case = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        number = getattr(error, "lineno", 1)
        raise TraceError(f"{path}:{number}: not a recording nor a case trace ({error})") from None
    if not isinstance(case, dict) or not isinstance(case.get("frames"), list):
        raise TraceError(f"{path}:1: a JSON object with no frames: not a conformance case trace")
    case_id = str(case.get("caseId", ""))
    source.case = f"{case_id}, {case.get('outcome', '?')}"
    protocol = case.get("protocol")
    source.edition = protocol if isinstance(protocol, str) else None
    client = case_id.startswith("client.")
    source.side = "client" if client else "agent"
    if not client and type(case.get("exit")) is int:
        source.exit_status = case["exit"]  # the agent's, when it ended with the case
        # the suite closes the input of a case it does not share at the case's end, then
        # takes the exit status (docs/conformance.md, the trace format's `exit`)
        source.input_closed = sum(
            1
            for r in case["frames"]
            if isinstance(r, dict) and r.get("dir") in ("sent", "received")
        )
    for record in case["frames"]:
        if not isinstance(record, dict) or record.get("dir") not in ("sent", "received"):
            source.skipped += 1
            continue
        toward_agent = (record["dir"] == "sent") != client
        direction: Direction = "sent" if toward_agent else "received"
        t = float(record.get("t", 0.0))
        if "json" in record:
            yield RecordedFrame(t, direction, record["json"])
        else:
            yield _raw_case_frame(t, direction, str(record.get("raw", "")))


def _raw_case_frame(t: float, direction: Direction, text: str) -> RecordedFrame:
    """A case trace keeps a line the suite sent as given bytes as its `raw` text: the agent
    read the JSON it holds, as a recording keeps it (`json`), where it is JSON."""
    if not text.startswith("hex:") and "\r" not in text:
        try:
            return RecordedFrame(t, direction, json.loads(text))
        except ValueError:
            pass
    return RecordedFrame(t, direction, None, text)


def _rust_sdk(source: Source) -> Iterator[RecordedFrame]:
    path = source.path
    client, agent = source.between
    mcp_ids: set[str] = set()
    """The ids of MCP-over-ACP requests left out (their responses carry no protocol)."""
    for number, event in _records(path):
        if not isinstance(event, dict) or event.get("type") not in (
            "request",
            "response",
            "notification",
        ):
            raise TraceError(f"{path}:{number}: not a request, response or notification event")
        ends = (event.get("from"), event.get("to"))
        key = json.dumps([sorted(ends, key=str), event.get("id")])
        if event.get("protocol") == "mcp" and event["type"] == "request":
            mcp_ids.add(key)
        mcp = event.get("protocol") == "mcp" or event.get("error_domain") == "mcp"
        if event["type"] == "response" and key in mcp_ids:
            mcp_ids.discard(key)
            mcp = True
        if ends not in ((client, agent), (agent, client)) or mcp:
            source.skipped += 1
            continue
        direction: Direction = "sent" if ends[1] == agent else "received"
        message: dict[str, Any] = {"jsonrpc": "2.0"}
        if event["type"] == "response":
            message["id"] = event.get("id")
            message["error" if event.get("is_error") else "result"] = event.get("payload")
        else:
            if event["type"] == "request":
                message["id"] = event.get("id")
            message["method"] = event.get("method")
            message["params"] = event.get("params")
        yield RecordedFrame(float(event.get("ts", 0.0)), direction, message)


def _lines(source: Source) -> Iterator[RecordedFrame]:
    first: float | None = None
    at = 0.0
    with source.path.open(encoding="utf-8") as lines:
        for line in lines:
            match = LINE.match(line.rstrip("\r\n"))
            if match is None:
                source.skipped += int(bool(line.strip()))
                continue
            t = _seconds(match["time"])
            if t is not None and first is None:
                first = t
                if not _is_number(match["time"]):
                    source.started = match["time"]
            if t is not None and first is not None:
                at = t - first  # a line without a time keeps the time of the line before
            direction: Direction = "sent" if match["marker"] in SENT_MARKERS else "received"
            rest = match["rest"]
            try:
                value = json.loads(rest)
            except ValueError:
                yield RecordedFrame(round(at, 4), direction, None, rest)
            else:
                yield RecordedFrame(round(at, 4), direction, value)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _seconds(text: str | None) -> float | None:
    """A line's time: seconds, or an ISO-8601 timestamp (None: no time, or not one)."""
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def write_ours(source: Source, out: Path, program: list[str]) -> int:
    """`source` written as our recording format (acp_protocol.trace.frames), frame by frame;
    the number of frames."""
    count = 0
    t = 0.0
    with out.open("w", encoding="utf-8") as file:
        header = {"acpTrace": FORMAT_VERSION, "program": program}
        file.write(json.dumps(header, ensure_ascii=False) + "\n")
        closed = False
        for frame in source.frames():
            if source.input_closed == count and not closed:  # read before this frame
                file.write(json.dumps({"t": t, "eof": "sent"}) + "\n")
                closed = True
            record: dict[str, Any] = {"t": frame.t, "dir": frame.dir}
            if frame.raw is None:
                record["json"] = frame.value
            else:
                record["raw"] = frame.raw
            file.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            count += 1
            t = frame.t
        if source.input_closed == count and not closed:
            file.write(json.dumps({"t": t, "eof": "sent"}) + "\n")
        if source.exit_status is not None:
            file.write(json.dumps({"t": t, "exit": source.exit_status}) + "\n")
    return count

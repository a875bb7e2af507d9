"""`python -m acp_protocol.trace record --out FILE -- AGENT …`: what an editor starts instead of
its agent. Every byte passes both ways unchanged (a line that is not JSON, a last line without its
newline, a huge line, bytes that are not UTF-8), the recording holds each frame with its
direction, the agent's stderr passes through and is recorded, signals go on to the agent, and the
exit status is the agent's."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.trace import record
from acp_protocol.trace.frames import read_frames, replayed
from hypothesis import given, settings
from hypothesis import strategies as st

AGENT = (sys.executable, str(Path(__file__).with_name("echo_agent.py")))


def recorder(out: Path, *agent: str) -> list[str]:
    return [sys.executable, "-m", "acp_protocol.trace", "record", "--out", str(out), "--", *agent]


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_every_byte_passes_unchanged_and_each_line_is_recorded_with_its_direction(
    tmp_path: Path,
) -> None:
    out = tmp_path / "rec.jsonl"
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"x": "é"}}
    huge = b'{"jsonrpc":"2.0","method":"_big","params":{"s":"' + b"a" * 300_000 + b'"}}'
    given = b'%s\nnot json at all\n%s\n\xff\xfe raw\n{"last": true}' % (
        json.dumps(request).encode(),
        huge,
    )
    done = subprocess.run(recorder(out, *AGENT), input=given, capture_output=True, timeout=60)
    assert done.returncode == 0
    expected = b"".join(b"echo:" + line for line in given.splitlines(keepends=True))
    assert done.stdout == expected
    assert done.stderr == b"started\n"
    frames = list(read_frames(out))
    sent = [f for f in frames if f.dir == "sent"]
    assert sent[0].value == request
    assert sent[1].raw == "not json at all"
    assert sent[2].value["params"]["s"] == "a" * 300_000
    assert sent[3].raw == "hex:" + b"\xff\xfe raw".hex()
    assert sent[4].value == {"last": True}
    assert [f.raw for f in frames if f.dir == "received"][:2] == [
        "echo:" + json.dumps(request),
        "echo:not json at all",
    ]
    records = lines_of(out)
    assert records[0]["acpTrace"] == 2 and records[0]["program"] == list(AGENT)
    assert {"t": records[-1]["t"], "exit": 0} == records[-1]
    assert any(r.get("stderr") == "started" for r in records)


def test_the_exit_status_is_the_agents(tmp_path: Path) -> None:
    out = tmp_path / "rec.jsonl"
    command = recorder(out, *AGENT, "--exit", "3")
    done = subprocess.run(command, input=b"", capture_output=True, timeout=60)
    assert done.returncode == 3
    assert lines_of(out)[-1]["exit"] == 3


def events(path: Path) -> list[Any]:
    """The recording's records after its header, each a frame's direction and its line, or an
    event (`eof`, `exit`, with its `signal`) as itself without its time."""
    found: list[Any] = []
    for line in lines_of(path)[1:]:
        if "dir" in line:
            found.append((line["dir"], line.get("raw", line.get("json"))))
        elif "stderr" not in line:
            found.append({k: v for k, v in line.items() if k != "t"})
    return found


def test_the_end_of_each_side_and_the_exit_are_recorded_in_order_with_the_frames(
    tmp_path: Path,
) -> None:
    """The editor closing the agent's input is recorded when the recorder read the end of its
    stdin, before it closed the agent's: what the agent writes after it comes after it; then
    the agent's end of its output, then its exit."""
    out = tmp_path / "rec.jsonl"
    agent = [*AGENT, "--bye", "--exit", "3"]
    process = subprocess.Popen(recorder(out, *agent), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"one\n")
    process.stdin.flush()
    assert process.stdout.readline() == b"echo:one\n"
    process.stdin.close()
    assert process.stdout.read() == b"bye\n"
    assert process.wait(timeout=30) == 3
    assert events(out) == [
        ("sent", "one"),
        ("received", "echo:one"),
        {"eof": "sent"},
        ("received", "bye"),
        {"eof": "received"},
        {"exit": 3},
    ]


def test_an_agent_that_exits_while_its_input_is_open_shows_no_end_of_its_input(
    tmp_path: Path,
) -> None:
    out = tmp_path / "rec.jsonl"
    agent = [sys.executable, "-c", "import sys; sys.stdin.readline(); sys.exit(4)"]
    process = subprocess.Popen(recorder(out, *agent), stdin=subprocess.PIPE)
    assert process.stdin is not None
    process.stdin.write(b"one\n")
    process.stdin.flush()
    assert process.wait(timeout=30) == 4  # our stdin still open
    process.stdin.close()
    assert events(out) == [("sent", "one"), {"eof": "received"}, {"exit": 4}]


def test_an_agent_ended_by_a_signal_is_recorded_with_the_signal(tmp_path: Path) -> None:
    out = tmp_path / "rec.jsonl"
    agent = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"]
    process = subprocess.Popen(recorder(out, *agent), stdin=subprocess.PIPE)
    assert process.wait(timeout=30) == 128 + signal.SIGKILL
    assert process.stdin is not None
    process.stdin.close()
    assert events(out) == [{"eof": "received"}, {"exit": -signal.SIGKILL, "signal": "SIGKILL"}]


def test_sigterm_goes_on_to_the_agent(tmp_path: Path) -> None:
    out = tmp_path / "rec.jsonl"
    process = subprocess.Popen(
        recorder(out, *AGENT), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stderr is not None and process.stdin is not None
    assert process.stderr.readline() == b"started\n"  # the agent runs and has its handler
    process.send_signal(signal.SIGTERM)
    # Our stdin stays open: an end of input sent with the signal could reach the agent first
    # (it would then exit 0 without its handler, recorded or not).
    assert process.wait(timeout=30) == 7
    assert b"got SIGTERM" in process.stderr.read()
    assert lines_of(out)[-1]["exit"] == 7


def test_a_line_is_forwarded_before_the_next_one_is_written(tmp_path: Path) -> None:
    """Nothing is held back: the agent answers a line while the editor's stdin stays open."""
    out = tmp_path / "rec.jsonl"
    process = subprocess.Popen(
        recorder(out, *AGENT), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b'{"jsonrpc":"2.0","method":"ping"}\n')
    process.stdin.flush()
    started = time.monotonic()
    assert process.stdout.readline() == b'echo:{"jsonrpc":"2.0","method":"ping"}\n'
    assert time.monotonic() - started < 30
    process.stdin.close()
    process.wait(timeout=30)
    assert process.returncode == 0


def test_a_program_that_does_not_exist_is_one_line_and_status_2(tmp_path: Path) -> None:
    done = subprocess.run(
        recorder(tmp_path / "rec.jsonl", str(tmp_path / "no-such-agent")),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"trace: No such file or directory: {tmp_path / 'no-such-agent'}"
    ]


def test_a_line_is_recorded_before_anything_the_agent_answers_to_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each stream has a thread of its own: the moment a chunk reaches the agent, the agent may
    answer and the other thread hand the answer over first. A chunk is handed to the writer
    before it is forwarded, so the recording keeps cause before effect (the conformance suite's
    probe and its answer, tests/trace/test_check_side_by_side.py)."""
    chunks: queue.SimpleQueue[Any] = queue.SimpleQueue()
    source, editor = os.pipe()
    agent_reads, target = os.pipe()
    forward = os.write

    def agent_answers_at_once(fd: int, data: Any) -> int:
        written = forward(fd, data)
        if fd == target:  # the agent has the line: its answer is handed over at once
            chunks.put((0.0, "received", b'{"jsonrpc":"2.0","id":1,"result":{}}\n'))
        return written

    monkeypatch.setattr(os, "write", agent_answers_at_once)  # relay looks it up as it starts
    forward(editor, b'{"jsonrpc":"2.0","id":1,"method":"_probe"}\n')
    os.close(editor)
    record.relay(source, target, "sent", chunks)
    order = []
    while not chunks.empty():
        _, stream, data = chunks.get()
        order += [stream] if data else []
    assert order == ["sent", "received"]
    assert os.read(agent_reads, 1024).endswith(b'"_probe"}\n')  # and it was forwarded
    for fd in (source, agent_reads, target):
        os.close(fd)


def test_the_recording_gives_back_every_byte_of_each_direction(tmp_path: Path) -> None:
    """Replayed, a recording is the bytes that passed: a line ended by `\\r\\n`, a JSON line with
    a carriage return between its tokens, a blank line, a line that is not UTF-8, and a last
    line without its newline."""
    out = tmp_path / "rec.jsonl"
    given = b'{"a":1}\r\n{"b":\r2}\n\nplain\r\n\xff\xfe\r\n{"last":true}'
    done = subprocess.run(recorder(out, *AGENT), input=given, capture_output=True, timeout=60)
    assert done.returncode == 0
    replay = replayed(out)
    assert replay["sent"] == given
    assert replay["received"] == done.stdout
    # and read as frames, a line ended by \r\n is the JSON it holds
    assert [f.value for f in read_frames(out) if f.dir == "sent"][:2] == [{"a": 1}, {"b": 2}]


def test_a_recording_that_can_no_longer_be_written_is_one_line_and_the_conversation_goes_on(
    tmp_path: Path,
) -> None:
    """The recording's file failing mid-conversation (here a pipe whose reader left after the
    header: EPIPE; a full disk alike) stops the recording, never the conversation: every byte
    still passes both ways, the exit status is still the agent's, nothing piles up, and the
    recorder says so in one line on stderr, never a traceback."""
    out = tmp_path / "fifo"
    os.mkfifo(out)
    given = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % n for n in range(200))
    process = subprocess.Popen(
        recorder(out, *AGENT, "--exit", "3"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    with out.open("rb") as reader:  # the recording's reader: the header, then it leaves
        assert json.loads(reader.readline())["acpTrace"] == 2
    stdout, stderr = process.communicate(given, timeout=60)
    assert process.returncode == 3
    assert stdout == b"".join(b"echo:" + line for line in given.splitlines(keepends=True))
    ours = [line for line in stderr.decode().splitlines() if line != "started"]
    assert len(ours) == 1, stderr.decode()
    assert str(out) in ours[0] and "not recorded" in ours[0]


LINES = st.lists(
    st.one_of(
        st.sampled_from(
            [
                b'{"jsonrpc":"2.0","id":1,"result":{}}',
                b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}',
                b"[1,2]",
                b'"text"',
                b"",
                b"not json",
                b'{"a":1}\r',
                b'{"a":\r1}',
                b"1,2",
                b'{"half":',
                b"\xff\xfe",
            ]
        ),
        st.binary(max_size=12),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(lines=LINES)
def test_the_records_of_a_chunk_are_each_lines_record_as_if_written_alone(
    lines: list[bytes],
) -> None:
    """The records of a chunk's lines come in one join when every line is JSON with no carriage
    return; whatever the lines, they are byte for byte each line's own record, in order."""
    head = b'{"t":1.5000,"dir":"sent",'
    alone = b"".join(
        head + (record._frame(line, True) if line[-1:] == b"\r" else record._body(line)) + b"}\n"
        for line in lines
    )
    assert record.encode_frames(1.5, "sent", lines) == alone

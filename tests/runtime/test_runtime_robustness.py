"""Random and malformed frames (hypothesis) and a cancel storm: the connection survives, every
request gets exactly one outcome, and nothing is left behind."""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from typing import Any

from acp_protocol.runtime import CancelSignal, RequestCancelled, RequestContext, RequestOptions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.runtime.support import connected, deadline, handlers, linked, settle

NO_ANSWER = object()
ERROR_CODES = {-32700, -32600, -32601, -32602, -32603, -32800}

scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8)
json_values = st.recursive(
    scalars | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
ids = (
    st.integers(-(2**63), 2**63 - 1)
    | st.text(max_size=6)
    | st.none()
    | st.booleans()
    | st.floats(allow_nan=False)
)
methods = st.sampled_from(["echo", "nope", "$/cancel_request", "$/x", "crash"]) | st.text(
    max_size=6
)
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "2.0", "2.0", "1.0"]) | scalars,
        "id": ids,
        "method": methods | scalars,
        "params": st.dictionaries(st.text(max_size=5), json_values, max_size=3)
        | st.lists(json_values, max_size=3)
        | scalars,
        "result": json_values,
        "error": json_values,
    },
)
garbage = st.binary(max_size=30).map(lambda b: b"{{" + b.replace(b"\n", b""))
lines = st.lists(
    messages.map(lambda m: json.dumps(m).encode())
    | json_values.map(lambda v: json.dumps(v).encode())
    | garbage,
    min_size=1,
    max_size=12,
)


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON value")


def expected_answer_id(line: bytes) -> Any:
    """The oracle, from JSON-RPC 2.0 §4 and §5: the id the connection must answer with, or
    NO_ANSWER (notifications and responses are never answered)."""
    try:
        # Strict JSON, as the runtime parses it: `NaN` and `Infinity` are not JSON values.
        message = json.loads(line, parse_constant=_not_json)
    except ValueError:
        return None
    if type(message) is not dict:
        return None
    request_id = message.get("id")
    usable = type(request_id) in (int, str)
    if "method" not in message:
        if "result" in message or "error" in message:
            return NO_ANSWER
        return request_id if usable else None
    if "id" in message and not usable:
        return None
    if type(message["method"]) is not str:
        return request_id if usable else None
    if "id" not in message:
        return NO_ANSWER
    return request_id


async def echo(params: Any, ctx: RequestContext) -> Any:
    return params


async def crash(params: Any, ctx: RequestContext) -> Any:
    raise ValueError("boom")


async def feed(frames: list[bytes]) -> None:
    async with connected(handlers({"echo": echo, "crash": crash})) as (connection, peer):
        for line in frames:
            peer.send_line(line)
        expected = Counter(
            json.dumps(i) for i in map(expected_answer_id, frames) if i is not NO_ANSWER
        )
        answers = await peer.receive_all(sum(expected.values()))
        await peer.expect_silence(0.01)
        for answer in answers:
            assert answer["jsonrpc"] == "2.0" and "id" in answer
            assert ("result" in answer) != ("error" in answer)
            if "error" in answer:
                assert answer["error"]["code"] in ERROR_CODES
        assert Counter(json.dumps(a["id"]) for a in answers) == expected
        peer.request("probe", "echo", ["alive"])
        assert await peer.receive() == {"jsonrpc": "2.0", "id": "probe", "result": ["alive"]}
        assert not connection.closed


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines)
def test_random_frames_each_get_their_one_answer_and_the_connection_survives(
    frames: list[bytes],
) -> None:
    """Every frame that must be answered is answered once, with the right id and a JSON-RPC
    error code; notifications and responses never are; a valid request still works after."""
    asyncio.run(feed(frames))


async def test_cancel_storm_every_request_has_one_outcome_and_nothing_is_left() -> None:
    """10,000 requests, a random half cancelled at random moments (task cancellation or the
    graceful signal): every request gets exactly one outcome and one answer on the wire, both
    tables end empty, no task remains."""
    rng = random.Random(20261121)
    answered: Counter[int] = Counter()

    async def work(params: Any, ctx: RequestContext) -> Any:
        if params["sleep"]:
            await asyncio.sleep(params["sleep"])
        return params["n"]

    before = asyncio.all_tasks()
    async with linked(right=handlers({"work": work})) as (left, right):
        answer = right.write_answer  # the incoming table's way out (`Inbound`)

        def count(frame: dict[str, Any]) -> None:
            answered[frame["id"]] += 1
            answer(frame)

        right.write_answer = count  # type: ignore[method-assign]
        sent: Counter[Any] = Counter()
        write = left.write_frame  # the outgoing table's way out (`Outbound`)

        def note_sent(frame: dict[str, Any], *, batch: int = 0) -> None:
            if frame.get("method") == "work":
                sent[frame["id"]] += 1
            write(frame, batch=batch)

        left.write_frame = note_sent  # type: ignore[method-assign]
        outcomes: Counter[str] = Counter()

        async def call(n: int, signal: CancelSignal | None) -> None:
            sleep = rng.choice([0, 0, 0.001, 0.003])
            if n % 1000 == 1:
                # A graceful cancel that reaches a finished handler rightly gets the result;
                # these ten outlast any backlog, so the -32800 path is always taken too.
                sleep = 30.0
            try:
                result = await left.request(
                    "work", {"n": n, "sleep": sleep}, RequestOptions(cancel=signal)
                )
                assert result == n
                outcomes["result"] += 1
            except RequestCancelled:
                outcomes["request-cancelled"] += 1
            except asyncio.CancelledError:
                outcomes["cancelled-error"] += 1
                raise

        tasks = []
        cancellations = []
        loop = asyncio.get_running_loop()
        for n in range(10_000):
            signal = CancelSignal() if n % 4 == 1 else None
            task = asyncio.create_task(call(n, signal))
            tasks.append(task)
            if n % 2:
                delay = rng.choice([0, 0, 0.0005, 0.002, 0.004])
                action = signal.cancel if signal is not None else task.cancel
                cancellations.append(loop.call_later(delay, action))
        done = await asyncio.gather(*tasks, return_exceptions=True)
        cancelled_tasks = sum(isinstance(r, asyncio.CancelledError) for r in done)
        assert cancelled_tasks == outcomes["cancelled-error"]
        assert sum(outcomes.values()) == 10_000
        async with deadline(5):
            while left.pending_count or right.in_flight_count:
                await asyncio.sleep(0.01)
        await settle()
        assert answered == sent  # exactly one answer per request that was sent
        assert set(sent.values()) == {1}
        assert all(
            o in outcomes for o in ("result", "request-cancelled", "cancelled-error")
        ), outcomes
        assert outcomes["result"] >= 5_000  # the other half was never cancelled
    await settle()
    assert asyncio.all_tasks() == before

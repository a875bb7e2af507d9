"""ACP v2's prompt retries, as the generated v2 agent answers them on the wire.

PromptRequest.idempotencyKey: "The Client generates the key and sends the same key on every
attempt for the same submission. [...] A retry of a recorded insertion returns the original
`messageId` without inserting another message." and "When present, the value is an opaque,
case-sensitive string of 1 to 255 characters. Agents MUST reject any other value with `-32602`
(Invalid params) and MUST NOT treat it as omitted."; IdempotencyKey: "It is scoped to the session
named by the request's `sessionId`."
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.typed.test_v2_behaviour import SESSION, WordsAgent, prompt, serving, state, until


def keyed(text: str, key: Any, session: str = SESSION) -> dict[str, Any]:
    return {**prompt(text, session), "idempotencyKey": key}


def inserted(frames: list[dict[str, Any]]) -> list[str]:
    """The message ids of the `user_message` updates among `frames`: one per insertion."""
    updates = [f["params"]["update"] for f in frames if f.get("method") == "session/update"]
    return [u["messageId"] for u in updates if u["sessionUpdate"] == "user_message"]


async def test_a_retry_of_a_recorded_insertion_returns_its_message_id_and_inserts_nothing() -> None:
    async with serving(WordsAgent(pause=0.05)) as peer:
        peer.request(1, "session/prompt", keyed("one two three four", "submission-1"))
        first = await until(peer, lambda f: f.get("id") == 1)
        peer.request(2, "session/prompt", keyed("one two three four", "submission-1"))
        frames = first + await until(peer, lambda f: f.get("id") == 2)
        frames += await until(peer, lambda f: state(f) == "idle")
    message_id = frames[len(first) - 1]["result"]["messageId"]
    retry = next(f for f in frames if f.get("id") == 2)
    assert retry == {"jsonrpc": "2.0", "id": 2, "result": {"messageId": message_id}}
    assert inserted(frames) == [message_id]
    # Answered while the first attempt's work still ran, not held behind it.
    idle = next(i for i, f in enumerate(frames) if state(f) == "idle")
    assert frames.index(retry) < idle


async def test_a_retry_held_behind_work_answers_the_insertion_made_meanwhile() -> None:
    """Both attempts wait behind other work; the first is inserted when it ends, the second,
    when its own turn comes, finds that insertion and inserts nothing."""
    async with serving(WordsAgent(pause=0.02)) as peer:
        peer.request(1, "session/prompt", prompt("ahead of both"))
        await until(peer, lambda f: f.get("id") == 1)
        peer.request(2, "session/prompt", keyed("the submission", "k"))
        peer.request(3, "session/prompt", keyed("the submission", "k"))
        frames = await until(peer, lambda f: f.get("id") == 3)
        await peer.expect_silence(0.1)  # the retry started no work
    answers = {f["id"]: f["result"]["messageId"] for f in frames if f.get("id") in (2, 3)}
    assert answers[3] == answers[2]
    assert inserted(frames) == [answers[2]]


async def test_the_same_key_in_another_session_is_another_submission() -> None:
    async with serving(WordsAgent()) as peer:
        peer.request(1, "session/prompt", keyed("here", "k", session="s-1"))
        frames = await until(peer, lambda f: f.get("id") == 1)
        peer.request(2, "session/prompt", keyed("there", "k", session="s-2"))
        frames += await until(peer, lambda f: f.get("id") == 2)
    first, second = (f["result"]["messageId"] for f in frames if f.get("id") in (1, 2))
    assert first != second
    assert inserted(frames) == [first, second]


async def test_a_null_key_is_no_key() -> None:
    """ "Omitted and `null` are equivalent and mean no key. The Agent then handles the prompt
    without duplicate detection.\" """
    async with serving(WordsAgent()) as peer:
        peer.request(1, "session/prompt", keyed("once", None))
        frames = await until(peer, lambda f: f.get("id") == 1)
        peer.request(2, "session/prompt", keyed("once", None))
        frames += await until(peer, lambda f: f.get("id") == 2)
        frames += await until(peer, lambda f: state(f) == "idle")
    assert len(set(inserted(frames))) == 2


@pytest.mark.parametrize(
    "key",
    ["", "k" * 256, "\U0001f600" * 256, 7, ["k"]],
    ids=["empty", "256 characters", "256 emoji", "a number", "an array"],
)
async def test_a_key_out_of_range_is_invalid_params_and_inserts_nothing(key: Any) -> None:
    async with serving(WordsAgent()) as peer:
        peer.request(1, "session/prompt", keyed("never inserted", key))
        answer = await peer.receive()
    assert answer["id"] == 1 and answer["error"]["code"] == -32602


@pytest.mark.parametrize(
    "key", ["k" * 255, "\U0001f600" * 255, "K"], ids=["255 characters", "255 emoji", "one"]
)
async def test_a_key_of_1_to_255_characters_is_accepted(key: str) -> None:
    """Characters, as JSON Schema counts them: 255 emoji are 510 UTF-16 units, 1,020 bytes."""
    async with serving(WordsAgent()) as peer:
        peer.request(1, "session/prompt", keyed("accepted", key))
        frames = await until(peer, lambda f: f.get("id") == 1)
    assert "messageId" in frames[-1]["result"]

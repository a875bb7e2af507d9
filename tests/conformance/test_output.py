"""What the agent sends is checked against the negotiated edition's schema (`output.*`, issue
46): a problem names the first error's JSON pointer and the schema's description there; unknown
fields, variants and `_`-prefixed methods are no error; capability-gated traffic and its level
come from the schema's own text."""

from __future__ import annotations

from typing import Any

from acp_protocol.conformance.output_gates import gates
from acp_protocol.conformance.output_schema import check_message, id_key
from acp_protocol.conformance.runner import all_cases, load_edition

V1 = load_edition("v1")
V2 = load_edition("v2")
ASKED = {id_key(3): "session/prompt"}


def _update(update: dict[str, Any], **params: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": update, **params},
    }


def _problem(message: dict[str, Any], edition: Any = V1) -> str | None:
    problem = check_message(message, ASKED, edition.data, edition.models)
    return None if problem is None else problem.line()


def test_a_chunk_whose_content_lacks_its_required_type_is_named_by_its_pointer() -> None:
    for edition in (V1, V2):
        chunk = {"sessionUpdate": "agent_message_chunk", "content": {"text": "hi"}}
        if edition is V2:
            chunk["messageId"] = "m"
        line = _problem(_update(chunk), edition)
        assert line is not None
        assert line.startswith('/params/update/content: no valid "type"'), line


def test_a_missing_required_field_names_it_and_the_schema_text_about_it() -> None:
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}}
    line = _problem(_update(chunk))
    assert line is not None
    assert line.startswith('/params/update/content/text: missing required "text"'), line
    assert '"Text payload carried by this content block."' in line


def test_a_result_is_checked_by_the_request_it_answers() -> None:
    line = _problem({"jsonrpc": "2.0", "id": 3, "result": {"stopReason": 5}})
    assert line is not None and line.startswith("/result/stopReason: "), line
    assert "Indicates why the agent stopped processing the turn." in line
    assert _problem({"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}}) is None
    # an answer to a request the suite never sent is not judged here
    assert _problem({"jsonrpc": "2.0", "id": 4, "result": {"stopReason": 5}}) is None


def test_unknown_fields_variants_and_extension_methods_are_no_error() -> None:
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}
    assert _problem(_update(chunk, extra={"a": 1})) is None
    assert _problem(_update({"sessionUpdate": "_vendor_update", "x": 1})) is None
    assert _problem(_update({**chunk, "content": {"type": "_vendor_block", "x": 1}})) is None
    extension = {"jsonrpc": "2.0", "id": 9, "method": "_vendor/ask", "params": 7}
    assert _problem(extension) is None


def test_an_error_answer_is_checked_as_the_schemas_error_object() -> None:
    line = _problem({"jsonrpc": "2.0", "id": 3, "error": {"code": -32603}})
    assert line is not None and line.startswith('/error/message: missing required "message"')


def test_plan_update_is_gated_by_plan_in_v1_as_must_by_its_words() -> None:
    found = {g.name: g for g in gates(V1.data, V1.models)}
    plan = found["plan_update"]
    assert plan.capability == "plan"
    said = "Agents MUST NOT send this update unless the Client advertised `plan`."
    assert plan.quote.text == said
    cases = {c.id: c for c in all_cases(V1.data)}
    assert cases["output.unadvertised.plan_update"].level == "MUST"
    # "Whether the Client supports `fs/read_text_file` requests.": no MUST, informative
    assert cases["output.unadvertised.fs/read_text_file"].level == "informative"


def test_v2_gates_no_plan_update_its_schema_has_no_such_capability() -> None:
    names = {g.name for g in gates(V2.data, V2.models)}
    assert "plan_update" not in names
    assert "elicitation/create" in names

"""`acp_protocol.<v>.builders`: each builds a model whose wire form its union reads back as that
variant, with every tag filled in (that every variant has one: tests/generator/test_builders.py)."""

from __future__ import annotations

import inspect

from acp_protocol.v2 import builders as v2
from acp_protocol.v2 import models as v2_models
from pydantic import TypeAdapter


def test_a_nested_union_variant_is_a_namespace_that_fills_in_every_level_of_tag() -> None:
    """v2 `StateUpdate`: "Foreground work is in progress" / "The active work ended successfully"
    — a `state_update` carries `state`, and an idle one its `stopReason`."""
    idle = v2.session_update.state_update.idle.end_turn()
    assert idle.to_wire() == {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "end_turn",
    }
    running = v2.session_update.state_update.running()
    assert running.to_wire() == {"sessionUpdate": "state_update", "state": "running"}
    read = TypeAdapter(v2_models.SessionUpdate).validate_python(
        v2.session_update.state_update.requires_action().to_wire()
    )
    assert isinstance(read, v2_models.SessionUpdateStateUpdateRequiresAction)


def test_a_builder_leaves_out_what_is_not_given_and_sends_an_explicit_none_as_null() -> None:
    error = v2.state_update.idle.error(meta=None)
    assert error.to_wire() == {"state": "idle", "stopReason": "error", "_meta": None}
    assert v2.state_update.idle.cancelled().to_wire() == {
        "state": "idle",
        "stopReason": "cancelled",
    }


def test_a_permission_outcome_is_built_by_its_tag() -> None:
    """v2 `RequestPermissionOutcome`: the client answers a cancelled request with `cancelled`."""
    assert v2.request_permission_outcome.cancelled().to_wire() == {"outcome": "cancelled"}
    selected = v2.request_permission_outcome.selected("allow")
    assert selected.to_wire() == {"outcome": "selected", "optionId": "allow"}


def test_an_alias_of_untagged_structs_is_a_namespace_of_one_builder_per_struct() -> None:
    """`CreateElicitationRequest` `form`: "Tied to a session, optionally to a specific tool call
    within that session", or to a request — two structs under one tag."""
    session = inspect.signature(v2.create_elicitation_request.form.session)
    request = inspect.signature(v2.create_elicitation_request.form.request)
    assert "session_id" in session.parameters
    assert "request_id" in request.parameters
    schema = v2_models.ElicitationSchema.model_validate({"type": "object", "properties": {}})
    built = v2.create_elicitation_request.form.session("s-1", "Name?", schema)
    wire = built.to_wire()
    assert wire["mode"] == "form" and wire["sessionId"] == "s-1"
    read = TypeAdapter(v2_models.CreateElicitationRequest).validate_python(wire)
    assert type(read) is type(built)


def test_a_content_block_argument_takes_a_plain_string() -> None:
    chunk = v2.session_update.agent_message_chunk("m-1", "hi")
    assert chunk.to_wire() == {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m-1",
        "content": {"type": "text", "text": "hi"},
    }

"""Builders: a tag defaults to its one literal, and `acp_protocol.<v>.helpers` builds the messages
agents send most, with absent, `null` and a value kept apart."""

from __future__ import annotations

import importlib
import typing
from typing import Any

import pytest
from acp_protocol.runtime import ABSENT
from acp_protocol.v1 import helpers, models
from acp_protocol.v1.unstable import helpers as unstable_helpers
from acp_protocol.v2 import helpers as v2_helpers
from acp_protocol.v2 import models as v2_models
from pydantic import TypeAdapter, ValidationError

UPDATES = TypeAdapter(models.SessionUpdate)
BLOCKS = TypeAdapter(models.ContentBlock)


def test_a_tag_defaults_to_its_literal_and_is_always_written() -> None:
    block = models.ContentBlockText(text="hi")
    assert block.type == "text"
    assert block.to_wire() == {"type": "text", "text": "hi"}
    update = models.SessionUpdateAgentMessageChunk(content=block)
    assert update.to_wire() == {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "hi"},
    }


def test_a_tag_read_from_the_wire_is_still_required_by_its_union() -> None:
    """Defaulting is for building in Python: a union still picks its variant by the tag on the
    wire, and an object without one is not taken for a text block."""
    assert isinstance(
        BLOCKS.validate_python({"type": "text", "text": "x"}), models.ContentBlockText
    )
    with pytest.raises(ValidationError):
        BLOCKS.validate_python({"text": "x"})


def test_text_block_and_message_chunks_take_a_plain_string() -> None:
    assert helpers.text_block("hi").to_wire() == {"type": "text", "text": "hi"}
    for build, tag in [
        (helpers.agent_message_chunk, "agent_message_chunk"),
        (helpers.agent_thought_chunk, "agent_thought_chunk"),
        (helpers.user_message_chunk, "user_message_chunk"),
    ]:
        wire = build("hi").to_wire()
        assert wire == {"sessionUpdate": tag, "content": {"type": "text", "text": "hi"}}
    image = helpers.image_block("AAAA", "image/png")
    assert helpers.agent_message_chunk(image).to_wire()["content"] == {
        "type": "image",
        "data": "AAAA",
        "mimeType": "image/png",
    }


def test_tool_call_start_and_progress() -> None:
    start = helpers.tool_call("call-1", "Read main.py", kind="read", status="pending")
    assert start.to_wire() == {
        "sessionUpdate": "tool_call",
        "toolCallId": "call-1",
        "title": "Read main.py",
        "kind": "read",
        "status": "pending",
    }
    progress = helpers.tool_call_update("call-1", status="completed")
    assert progress.to_wire() == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "call-1",
        "status": "completed",
    }


def test_an_optional_argument_left_out_is_absent_and_none_is_null() -> None:
    """`session_info_update`: "absent / null / value kept apart" (null clears the title)."""
    assert helpers.session_info_update().to_wire() == {"sessionUpdate": "session_info_update"}
    assert helpers.session_info_update(title=None).to_wire() == {
        "sessionUpdate": "session_info_update",
        "title": None,
    }
    assert helpers.session_info_update(title="Fix the build", meta={"k": 1}).to_wire() == {
        "sessionUpdate": "session_info_update",
        "title": "Fix the build",
        "_meta": {"k": 1},
    }
    assert helpers.session_info_update(title=ABSENT).to_wire() == {
        "sessionUpdate": "session_info_update"
    }


def test_plan() -> None:
    entry = models.PlanEntry(content="Write tests", priority="high", status="pending")
    assert helpers.plan([entry]).to_wire() == {
        "sessionUpdate": "plan",
        "entries": [{"content": "Write tests", "priority": "high", "status": "pending"}],
    }


@pytest.mark.parametrize(
    ("module", "edition_models"),
    [(helpers, models), (unstable_helpers, None), (v2_helpers, v2_models)],
    ids=["v1", "v1-unstable", "v2"],
)
def test_every_struct_variant_of_the_helper_unions_has_a_helper(
    module: Any, edition_models: Any
) -> None:
    """By rule, not by list: each helper returns one variant of `ContentBlock` or
    `SessionUpdate`, and every struct variant of those unions has its helper."""
    built = {typing.get_type_hints(getattr(module, name))["return"] for name in module.__all__}
    models_module = edition_models or importlib.import_module(
        module.__name__.rsplit(".", 1)[0] + ".models"
    )
    for union in ("ContentBlock", "SessionUpdate"):
        variants = _struct_variants(getattr(models_module, union))
        assert variants, union
        assert variants <= built, sorted(v.__name__ for v in variants - built)


def _struct_variants(union: Any) -> set[type]:
    """The model classes of an open tagged union (`Annotated[A | B | …, discriminator]`)."""
    found: set[type] = set()
    stack = [union.__value__ if hasattr(union, "__value__") else union]
    while stack:
        node = stack.pop()
        if isinstance(node, type):
            if not node.__name__.startswith("Unknown"):
                found.add(node)
            continue
        stack.extend(typing.get_args(node))
    return found


def test_v2_helpers_follow_v2_fields() -> None:
    """v2 chunks carry a required `messageId`: the helper asks for it first."""
    assert v2_helpers.agent_message_chunk("m-1", "hi").to_wire() == {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m-1",
        "content": {"type": "text", "text": "hi"},
    }

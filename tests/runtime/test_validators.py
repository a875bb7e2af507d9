"""The strict fast path of `validator_for` never changes a result: whatever a wire value is, the
fast-then-lenient validator gives what the type's own (lenient) validator gives, or the same error.

The values are the corpus messages (tests/corpus/), each also mutated at one random place the way
peers get things wrong: a null, a value of the wrong type, a missing key, an unknown variant tag.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from acp_protocol.runtime.model import ProtocolModel
from acp_protocol.runtime.validators import validator_for
from acp_protocol.v1 import methods, models
from acp_protocol.v1.unstable import methods as unstable_methods
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from tests.typed.test_corpus import CORPUS_FILES, frames_with_types

SAMPLES = [
    (f"{edition.__name__}:{label}", wire, wire_type)
    for edition in (methods, unstable_methods)
    for path in CORPUS_FILES
    for label, wire, wire_type in frames_with_types(path, edition)
]
REPLACEMENTS: list[Any] = [None, 7, "text", [], {}, True, "__some_future_variant__"]


def lenient(wire_type: Any, value: Any) -> Any:
    if isinstance(wire_type, type) and issubclass(wire_type, BaseModel):
        return wire_type.model_validate(value)
    return TypeAdapter(wire_type).validate_python(value)


def outcome(validate: Any, value: Any) -> tuple[str, Any]:
    """('ok', type name and wire form) or ('error', pydantic's error list)."""
    try:
        result = validate(value)
    except ValidationError as error:
        return "error", error.errors(include_url=False)
    wire = result.to_wire() if isinstance(result, ProtocolModel) else result
    return "ok", (type(result).__name__, wire)


def places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON value (object keys and list indexes), the root excluded."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            found += [(*path, key), *places(item, (*path, key))]
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += [(*path, index), *places(item, (*path, index))]
    return found


def mutated(value: Any, path: tuple[Any, ...], replacement: Any, delete: bool) -> Any:
    if not path:
        return replacement
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        copy = dict(value)
        if delete and not rest:
            del copy[head]
        else:
            copy[head] = mutated(value[head], rest, replacement, delete)
        return copy
    items = list(value)
    items[head] = mutated(value[head], rest, replacement, delete)
    return items


@pytest.mark.parametrize("label, wire, wire_type", SAMPLES, ids=[s[0] for s in SAMPLES])
def test_fast_path_gives_the_lenient_result_for_every_corpus_message(
    label: str, wire: Any, wire_type: Any
) -> None:
    assert outcome(validator_for(wire_type), wire) == outcome(lambda v: lenient(wire_type, v), wire)


def test_fast_path_gives_the_lenient_outcome_for_every_single_mutation() -> None:
    """Exhaustive: every corpus message, every place in it, every replacement, and deletion."""
    differ = []
    for label, wire, wire_type in SAMPLES:
        for path in places(wire):
            deletions = (False, True) if isinstance(path[-1], str) else (False,)
            for replacement in REPLACEMENTS:
                for delete in deletions:
                    value = mutated(wire, path, replacement, delete)
                    fast = outcome(validator_for(wire_type), value)
                    if fast != outcome(partial(lenient, wire_type), value):
                        differ.append((label, path, replacement, delete))
    assert differ == []


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_path_gives_the_lenient_result_or_error_for_a_mutated_message(data: Any) -> None:
    label, wire, wire_type = data.draw(st.sampled_from(SAMPLES), label="sample")
    spots = places(wire)
    if not spots:
        return
    path = data.draw(st.sampled_from(spots), label="path")
    delete = data.draw(st.booleans(), label="delete") and isinstance(path[-1], str)
    replacement = data.draw(st.sampled_from(REPLACEMENTS), label="replacement")
    value = mutated(wire, path, replacement, delete)
    assert outcome(validator_for(wire_type), value) == outcome(
        lambda v: lenient(wire_type, v), value
    ), label


def test_unknown_variant_goes_through_the_lenient_path_and_is_kept() -> None:
    """ "Unknown notifications SHOULD be ignored" is not enough for a union variant: a newer
    peer's `session/update` kind must still parse (as `UnknownSessionUpdate`), fields intact."""
    value = {"sessionId": "s", "update": {"sessionUpdate": "hologram", "depth": 3}}
    parsed = validator_for(models.SessionNotification)(value)
    assert type(parsed.update).__name__ == "UnknownSessionUpdate"
    assert parsed.to_wire() == value


def test_bad_meta_is_dropped_by_the_lenient_rule_and_the_message_kept() -> None:
    """`_meta` is `x-deserialize-default-on-error`: a bad one is dropped, the message kept."""
    value = {"sessionId": "s", "path": "/a", "_meta": "not an object"}
    parsed = validator_for(models.ReadTextFileRequest)(value)
    assert parsed.path == "/a"
    assert parsed.meta is None


def test_plain_union_variant_rescued_by_a_lenient_rule_is_still_chosen() -> None:
    """Found by the property test above: `requestedSchema.type: null` makes the form variant
    invalid strictly but valid leniently (a default-on-null/error rule), while the catch-all
    variant is valid strictly; below a plain union the fast path must not change the choice."""
    _, wire, wire_type = next(
        s for s in SAMPLES if s[0] == "acp_protocol.v1.methods:elicitation_create.json[0]"
    )
    value = mutated(wire, ("requestedSchema", "type"), None, delete=False)
    fast = outcome(validator_for(wire_type), value)
    assert fast == outcome(lambda v: lenient(wire_type, v), value)
    assert fast[1][0] == "CreateElicitationRequestFormSession"

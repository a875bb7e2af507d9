"""The target kit (`acp_codegen.targets.kit`): the rules every target applies alike, from small
inline schemas. The clash rule is one rule: each target reports the same clashes, as problems
with a location, every edition's together."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_codegen import ir
from acp_codegen.ir import Specification, Stability
from acp_codegen.lowering import lower_edition
from acp_codegen.problems import GenerationError, SchemaProblem, SchemaProblems
from acp_codegen.targets import TARGETS, Options, load_target
from acp_codegen.targets.go.names import METHODS
from acp_codegen.targets.kit.fields import flat_fields
from acp_codegen.targets.kit.scaffold import starter
from acp_codegen.targets.python.roles import HANDLERS as PYTHON_HANDLERS
from acp_codegen.targets.typescript.names import HANDLERS as TYPESCRIPT_HANDLERS

SCHEMA = "https://json-schema.org/draft/2020-12/schema"
PARAMS = {"type": "object", "properties": {}}
SPELLINGS = {"python": PYTHON_HANDLERS, "typescript": TYPESCRIPT_HANDLERS, "go": METHODS}


def method(name: str, side: str, prefix: str) -> dict[str, Any]:
    """The params and result defs of a request `name` handled by `side`."""
    annotated = {**PARAMS, "x-method": name, "x-side": side}
    return {f"{prefix}Request": annotated, f"{prefix}Response": annotated}


def edition(defs: dict[str, Any], protocol: str = "v1") -> ir.Edition:
    return lower_edition(
        {"$schema": SCHEMA, "$defs": defs},
        protocol=protocol,
        channel=Stability.STABLE,
        source=f"{protocol}.json",
        sha256="0",
    )


def spec(*editions: ir.Edition) -> Specification:
    return Specification("inline@0", "0", editions)


# `fs/read_file` and `fs.read-file` are one name in every target (`fs_read_file`, `fsReadFile`,
# `FsReadFile`): once handled by one role, once by the other.
ACROSS_ROLES = {
    **method("fs/read_file", "client", "ReadFile"),
    **method("fs.read-file", "agent", "ReadFile2"),
}


@pytest.mark.parametrize("target", TARGETS)
def test_two_methods_with_one_name_are_a_problem_in_every_target(
    target: str, tmp_path: Path
) -> None:
    """Per edition, not per role: the two methods are handled by different roles, and still
    clash (Go declares one constant per method in the edition's package)."""
    with pytest.raises(SchemaProblems) as raised:
        load_target(target)(spec(edition(ACROSS_ROLES)), tmp_path, Options(command="test"))
    [problem] = raised.value.problems
    assert problem.source == "v1.json"
    assert problem.pointer == "/$defs/ReadFileRequest"
    assert "methods 'fs.read-file' and 'fs/read_file' both map to the " in problem.message
    assert not list(tmp_path.iterdir()), "nothing is written when a name clashes"


@pytest.mark.parametrize("target", TARGETS)
def test_two_methods_of_one_role_with_one_name_are_a_problem(target: str) -> None:
    defs = {**method("fs/read_file", "client", "ReadFile"), **method("fs_read_file", "client", "X")}
    [problem] = SPELLINGS[target].problems(edition(defs))
    assert problem.pointer == "/$defs/XRequest"


def test_a_request_and_a_notification_of_one_name_do_not_clash() -> None:
    """The notification's name gets the target's suffix."""
    note = {**PARAMS, "x-method": "mcp/message", "x-side": "both"}
    defs = {**method("mcp/message", "both", "Message"), "MessageNotification": note}
    for spelling in SPELLINGS.values():
        assert spelling.problems(edition(defs)) == []
    names = PYTHON_HANDLERS.names(edition(defs))
    assert names[("mcp/message", ir.MethodKind.NOTIFICATION)] == "mcp_message_notification"
    go = METHODS.names(edition(defs))
    assert go[("mcp/message", ir.MethodKind.NOTIFICATION)] == "MCPMessageNotification"


def test_a_name_the_runtime_keeps_is_a_problem() -> None:
    defs = method("extension/request", "agent", "Ext")
    for spelling in (PYTHON_HANDLERS, TYPESCRIPT_HANDLERS):
        [problem] = spelling.problems(edition(defs))
        assert problem.pointer == "/$defs/ExtRequest"
        assert "which the runtime keeps" in problem.message
    assert METHODS.problems(edition(defs)) == []


def test_every_editions_clashes_are_reported_together() -> None:
    both = spec(edition(ACROSS_ROLES, "v1"), edition(ACROSS_ROLES, "v2"))
    with pytest.raises(SchemaProblems) as raised:
        METHODS.check(both)
    assert [(p.source, p.pointer) for p in raised.value.problems] == [
        ("v1.json", "/$defs/ReadFileRequest"),
        ("v2.json", "/$defs/ReadFileRequest"),
    ]
    assert all(isinstance(p, SchemaProblem) for p in raised.value.problems)


def test_a_struct_is_flat_its_bases_fields_first_a_redeclared_one_in_the_bases_place() -> None:
    defs = {
        "Base": {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        },
        "Child": {
            "allOf": [{"$ref": "#/$defs/Base"}],
            "type": "object",
            "properties": {"c": {"type": "string"}, "a": {"type": "integer"}},
        },
    }
    e = edition(defs)
    by_name = {d.name: d for d in e.definitions}
    child = by_name["Child"]
    assert isinstance(child, ir.Struct)
    assert child.bases == ("Base",)
    fields = flat_fields(child, by_name)
    assert [f.wire_name for f in fields] == ["a", "b", "c"]
    assert isinstance(fields[0].type, ir.Primitive)
    assert fields[0].type.kind is ir.PrimitiveKind.INTEGER


def test_the_starter_preamble_names_the_command_and_fails_on_what_is_not_pinned() -> None:
    s = starter(spec(edition(ACROSS_ROLES)), "client", unstable=False, protocol="v1", lang="go")
    assert s.command == "acp-codegen scaffold client --lang go"
    assert s.answer is ir.PromptAnswer.COMPLETION
    with pytest.raises(GenerationError, match="pins no unstable v1 schema"):
        starter(spec(edition(ACROSS_ROLES)), "agent", unstable=True, protocol="v1", lang=None)
    with pytest.raises(GenerationError, match="unknown role 'proxy'; choose one of agent, client"):
        starter(spec(edition(ACROSS_ROLES)), "proxy", unstable=False, protocol="v1", lang=None)

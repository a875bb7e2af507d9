"""The Go target from small inline schemas: what it writes for each IR rule (golden snippets of
`types.go` and `codec.go`), and the names it refuses, without a Go toolchain."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_codegen import cli
from acp_codegen.ir import Specification, Stability
from acp_codegen.lowering import lower_edition
from acp_codegen.problems import GenerationError
from acp_codegen.targets import Options
from acp_codegen.targets.go import generate
from acp_codegen.targets.go.names import doc_lines, go_name
from tests.paths import ROOT

SCHEMA = "https://json-schema.org/draft/2020-12/schema"


def render(tmp_path: Path, defs: dict[str, Any]) -> dict[str, str]:
    """`types.go` and `codec.go` of an edition lowered from `defs`."""
    doc = {"$schema": SCHEMA, "$defs": defs}
    edition = lower_edition(
        doc, protocol="v1", channel=Stability.STABLE, source="inline.json", sha256="0"
    )
    generate(Specification("inline@0", "0", (edition,)), tmp_path, Options(command="test"))
    return {name: (tmp_path / "v1" / name).read_text() for name in ("types.go", "codec.go")}


def obj(required: list[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": properties}


BLOCK = {
    "discriminator": {"propertyName": "type"},
    "oneOf": [
        obj(["type", "text"], type={"const": "text"}, text={"type": "string"}),
        obj(["type", "uri"], type={"const": "link"}, uri={"type": "string", "minLength": 1}),
    ],
}


def test_identifiers_spell_initialisms_the_go_way() -> None:
    assert go_name("sessionId") == "SessionID"
    assert go_name("McpServerHttp") == "MCPServerHTTP"
    assert go_name("toolCallIds") == "ToolCallIDs"
    assert go_name("_meta") == "Meta"
    assert go_name("$/cancel_request") == "CancelRequest"


def test_absent_null_and_a_value_are_kept_apart(tmp_path: Path) -> None:
    """`required` says absent or not, `Nullable` says null or not: a field that may be either is
    a wire.Opt, `omitzero` only when it may be absent."""
    out = render(
        tmp_path,
        {
            "Info": obj(
                ["id", "parent"],
                id={"type": "string"},
                parent={"type": ["string", "null"]},
                title={"type": ["string", "null"], "x-deserialize-default-on-error": True},
                count={"type": "integer", "format": "uint16", "minimum": 1, "maximum": 65535},
                tags={"type": "array", "items": {"type": "string"}},
                _meta={"type": ["object", "null"], "additionalProperties": True},
            )
        },
    )
    types, codec = out["types.go"], out["codec.go"]
    assert '\tID string `json:"id"`\n' in types
    assert '\tParent wire.Opt[string] `json:"parent"`\n' in types
    assert '\tTitle wire.Opt[string] `json:"title,omitzero"`\n' in types
    assert '\tCount wire.Opt[uint16] `json:"count,omitzero"`\n' in types
    assert '\tMeta wire.Opt[map[string]json.RawMessage] `json:"_meta,omitzero"`\n' in types
    assert '\tExtra wire.Extra `json:"-"`\n' in types
    assert 'wire.Field(o, "id", &v.ID, wire.String[string], wire.Required)' in codec
    parent = 'wire.OptionalField(o, "parent", &v.Parent, wire.String[string], '
    assert parent + "wire.Required|wire.Nullable)" in codec
    assert "wire.Nullable|wire.DefaultOnError)" in codec
    # uint16 holds 65535 already: only the minimum is checked.
    assert 'wire.OptionalField(o, "count", &v.Count, wire.IntAtLeast[uint16](1), 0)' in codec
    assert 'wire.OptionalField(o, "_meta", &v.Meta, wire.RawMap, wire.Nullable)' in codec


def test_a_tagged_union_is_a_sealed_interface_with_an_unknown_member(tmp_path: Path) -> None:
    out = render(tmp_path, {"Block": BLOCK})
    types, codec = out["types.go"], out["codec.go"]
    assert "type Block interface {\n\tisBlock()\n}\n" in types
    assert "func (BlockText) isBlock() {}\n" in types
    assert "func (UnknownBlock) isBlock() {}\n" in types
    # The tag is a constant, not a field: decoding checks it, marshalling writes it.
    assert "\tType string" not in types.split("type BlockText struct")[1].split("}")[0]
    assert 'o.Constant("type", "text")' in codec
    assert 'return wire.MarshalObject(`"type":"text"`, plain(v), v.Extra)' in codec
    # An unknown tag is the catch-all, never the first variant.
    assert '\tswitch tag {\n\tcase "text":' in codec
    assert "\t}\n\tvar v UnknownBlock\n" in codec
    assert 'wire.StringWith[string](1, "")' in codec


def test_a_union_member_that_is_a_union_embeds_its_parent(tmp_path: Path) -> None:
    """v2's `session/update` shape: a variant that is itself a union (by another tag)."""
    state = {
        "oneOf": [
            obj(["state"], state={"const": "running"}),
            obj(["state"], state={"const": "idle"}),
        ]
    }
    update = {
        "oneOf": [
            obj(["kind", "text"], kind={"const": "text"}, text={"type": "string"}),
            {
                "allOf": [{"$ref": "#/$defs/State"}],
                "properties": {"kind": {"const": "state"}},
                "required": ["kind"],
            },
        ]
    }
    out = render(tmp_path, {"State": state, "Update": update})
    types, codec = out["types.go"], out["codec.go"]
    assert "type UpdateState interface {\n\tUpdate\n\tisUpdateState()\n}\n" in types
    assert "func (UpdateStateIdle) isUpdate() {}\n" in types
    assert "func (UpdateStateIdle) isUpdateState() {}\n" in types
    assert (
        '\tcase "state":\n\t\tvar v UpdateState\n\t\tif err := decodeUpdateStateObject(o, &v)'
        in codec
    )


def test_an_untagged_union_wraps_members_that_are_not_structs(tmp_path: Path) -> None:
    value = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}, {}]}
    out = render(tmp_path, {"Value": value})
    types, codec = out["types.go"], out["codec.go"]
    assert "type ValueString string\n" in types
    assert "type ValueStringList []string\n" in types
    assert "type ValueValue json.RawMessage\n" in types
    assert "if v, err := wire.Decode(data, wire.String[string]); err == nil {" in codec
    assert "*out = ValueStringList(v)" in codec
    # A defined []byte type would be written base64: the kept JSON value writes itself.
    assert (
        "func (w ValueValue) MarshalJSON() ([]byte, error) {\n\treturn wire.MarshalRaw(w)" in codec
    )


def test_doc_comments_are_written_as_gofmt_keeps_them() -> None:
    text = "Summary line.\n\n  - an indented item\n\n\nAcp transport\n\nMore text."
    assert doc_lines(text) == [
        "Summary line.",
        "",
        "- an indented item",
        "",
        "# Acp transport",
        "",
        "More text.",
    ]


def test_two_types_with_one_go_name_are_refused(tmp_path: Path) -> None:
    defs = {"SessionId": {"type": "string"}, "SessionID": {"type": "integer"}}
    with pytest.raises(GenerationError, match="the Go name 'SessionID' is both"):
        render(tmp_path, defs)


def test_a_field_that_would_shadow_extra_is_refused(tmp_path: Path) -> None:
    with pytest.raises(GenerationError, match=r"Thing\.Extra is also the kept unknown members"):
        render(tmp_path, {"Thing": obj([], extra={"type": "string"})})


def test_scaffold_go_v2_writes_the_starter_of_the_insertion_lifecycle(tmp_path: Path) -> None:
    """The template follows the IR's `PromptAnswer`: v2's prompt method is the work (it returns
    the stop reason), and the command that wrote the file says `--protocol v2`."""
    out = tmp_path / "a.go"
    status = cli.main(["scaffold", "agent", "--lang", "go", "--protocol", "v2", "--out", str(out)])
    text = out.read_text()
    assert status == 0
    assert 'v2 "acp-protocol-sdk/v2"' in text
    assert "SessionPrompt(ctx context.Context, params v2.PromptRequest) (string, error)" in text
    assert "`acp-codegen scaffold agent --lang go --protocol v2`" in text


def test_the_client_keeps_session_views_only_where_the_prompt_is_answered_at_insertion() -> None:
    """PromptResponse: "Processing and completion are reported through `state_update` session
    updates": where the IR's lifecycle says so (v2), the client handler feeds the session views
    (`acp.Observe`) and the agent's peer makes them (`Session`); v1 has neither."""
    generated = ROOT / "generated" / "go"
    observe = (
        "acp.Observe(ctx, params, acp.Feeding(ctx, StateTable, MethodSessionUpdate,"
        " wire.Unmarshal[UpdateSessionNotification]), h.handler"
    )
    session = (
        "func (p AgentPeer) Session(id SessionID) *acp.SessionView[SessionUpdate, ContentBlock]"
    )
    for edition in ("v2", "v2/unstable"):
        assert observe in (generated / edition / "client.go").read_text()
        assert session in (generated / edition / "agent.go").read_text()
    for edition in ("v1", "v1/unstable"):
        assert "acp.Observe(" not in (generated / edition / "client.go").read_text()
        assert "Session(id" not in (generated / edition / "agent.go").read_text()


def test_the_client_feeds_its_state_what_the_state_table_covers() -> None:
    """x-state says "what each update does to client state": the client's handler decodes each
    message a table entry's params cover through `acp.Feeding`, its agent peer sends the requests
    whose result an entry covers (v2's `session/new`) or that start a prompt turn (v1's
    `session/prompt`, the table's `turn`) through `acp.CallFeeding`; every edition has its
    `StateTable` and the agent peer exposes the state."""
    generated = ROOT / "generated" / "go"
    feeds = {
        "v1": ["MethodSessionUpdate"],
        "v2": ["MethodSessionUpdate", "MethodSessionRequestPermission"],
    }
    calls = {
        "v1": ["MethodSessionPrompt"],
        "v1/unstable": ["MethodSessionPrompt"],
        "v2": ["MethodSessionNew"],
        "v2/unstable": ["MethodSessionNew", "MethodAuthStatus"],
    }
    for edition in calls:
        protocol = edition.split("/")[0]
        assert "var StateTable = &acp.StateTable{" in (generated / edition / "state.go").read_text()
        client = (generated / edition / "client.go").read_text()
        agent = (generated / edition / "agent.go").read_text()
        for method in feeds[protocol]:
            assert f"acp.Feeding(ctx, StateTable, {method}," in client, (edition, method)
        for method in calls[edition]:
            assert f"acp.CallFeeding(ctx, p.Conn, {method}," in agent, (edition, method)
        assert "func (p AgentPeer) SessionState(id SessionID) *acp.SessionState" in agent
        assert "acp.Feeding(" not in agent and "acp.CallFeeding(" not in client

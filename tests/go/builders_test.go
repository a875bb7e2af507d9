package tests

import (
	"encoding/json"
	"testing"

	v1 "acp-protocol-sdk/v1"
	v2 "acp-protocol-sdk/v2"
	"acp-protocol-sdk/wire"
)

// The builders (builders.go of each edition): New<Variant> takes the required fields, writes the
// tags and leaves the optional fields absent.

func TestABuilderWritesItsTagAndLeavesItsOptionalFieldsOut(t *testing.T) {
	chunk := v1.NewSessionUpdateAgentMessageChunk(v1.NewContentBlockText("hi"))
	want := `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`
	if written := mustMarshal(t, chunk); written != want {
		t.Fatalf("wrote %s, want %s", written, want)
	}
	// An optional field is set on the value the builder returns.
	chunk.Meta = wire.Some(map[string]json.RawMessage{"k": json.RawMessage(`1`)})
	want = `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"},"_meta":{"k":1}}`
	if written := mustMarshal(t, chunk); written != want {
		t.Fatalf("wrote %s, want %s", written, want)
	}
	var update v1.SessionUpdate = chunk // a builder's value is its union's member
	if written := mustMarshal(t, v1.SessionNotification{SessionID: "s", Update: update}); written != `{"sessionId":"s","update":`+want+`}` {
		t.Fatalf("wrote %s", written)
	}
}

func TestABuilderTakesEveryRequiredFieldInSchemaOrder(t *testing.T) {
	chunk := v2.NewSessionUpdateAgentMessageChunk("m-1", v2.NewContentBlockText("hi"))
	want := `{"sessionUpdate":"agent_message_chunk","messageId":"m-1","content":{"type":"text","text":"hi"}}`
	if written := mustMarshal(t, chunk); written != want {
		t.Fatalf("wrote %s, want %s", written, want)
	}
	decoded, err := v2.DecodeSessionUpdate([]byte(want))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := decoded.(v2.SessionUpdateAgentMessageChunk); !ok || got.MessageID != "m-1" {
		t.Fatalf("read back as %#v", decoded)
	}
}

func TestANestedStopReasonBuilderWritesTheTagOfEveryLevel(t *testing.T) {
	idle := v2.NewSessionUpdateStateUpdateIdleEndTurn()
	want := `{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}`
	if written := mustMarshal(t, idle); written != want {
		t.Fatalf("wrote %s, want %s", written, want)
	}
	// The leaf is a member of each union on its way up.
	var (
		_ v2.SessionUpdate                = idle
		_ v2.SessionUpdateStateUpdate     = idle
		_ v2.SessionUpdateStateUpdateIdle = idle
	)
	decoded, err := v2.DecodeSessionUpdate([]byte(want))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := decoded.(v2.SessionUpdateStateUpdateIdleEndTurn); !ok {
		t.Fatalf("read back as %#v", decoded)
	}
	state := v2.NewStateUpdateIdleCancelled()
	state.Background = wire.Some([]v2.BackgroundWork{v2.NewBackgroundWorkTerminal("t-1")})
	want = `{"state":"idle","stopReason":"cancelled","background":[{"type":"terminal","terminalId":"t-1"}]}`
	if written := mustMarshal(t, state); written != want {
		t.Fatalf("wrote %s, want %s", written, want)
	}
}

func TestARequiredButNullableFieldIsAnOptArgument(t *testing.T) {
	// v1's requestId may be null but not absent: the argument is its wire.Opt, and absent is
	// written null.
	form := v1.NewCreateElicitationRequestFormRequest(wire.Null[v1.RequestID](), "name?", v1.ElicitationSchema{})
	want := `{"mode":"form","requestId":null,"message":"name?","requestedSchema":{}}`
	if written := mustMarshal(t, form); written != want {
		t.Fatalf("wrote %s, want %s", written, want)
	}
	form = v1.NewCreateElicitationRequestFormRequest(wire.Some[v1.RequestID](v1.RequestIDString("r-1")), "name?", v1.ElicitationSchema{})
	decoded, err := v1.DecodeCreateElicitationRequest([]byte(mustMarshal(t, form)))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := decoded.(v1.CreateElicitationRequestFormRequest)
	if id, _ := got.RequestID.Get(); !ok || id != v1.RequestIDString("r-1") {
		t.Fatalf("read back as %#v", decoded)
	}
}

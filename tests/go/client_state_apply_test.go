package tests

// What ClientState.Apply hands out, and what it keeps of a message, belong to no one else: Apply
// makes what it returns in as few allocations as it can (issue 38's bench row), and keeps no map
// of the caller's, yet a result changed by its caller changes neither the state nor a later
// result, and a message changed after Apply leaves its logged copy as it came.

import (
	"encoding/json"
	"testing"

	acp "acp-protocol-sdk"
	v2unstable "acp-protocol-sdk/v2/unstable"
)

func TestWhatApplyReturnsIsTheCallersToChange(t *testing.T) {
	state := acp.NewClientState(v2unstable.StateTable)
	chunk := `{"method": "session/update", "params": {"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": {"type": "text", "text": "hi"}}}}`
	first := state.Apply(stateMessage(t, json.RawMessage(chunk)))
	if len(first.Changes) != 1 || first.Changes[0].ID == nil || first.Session != first.Changes[0].Session {
		t.Fatalf("one keyed change naming the message's session, got %s", show(first))
	}
	*first.Session, *first.Changes[0].ID, first.Changes[0].Target = "x", "y", "z"
	second := state.Apply(stateMessage(t, json.RawMessage(chunk)))
	want := `{"Session":"s","Changes":[{"scope":"session","session":"s","target":"agentMessage","id":"m","action":"append"}],"Logged":false,"Problem":null}`
	if got := show(second); got != want {
		t.Fatalf("a changed result changed the next one: %s", got)
	}
	entries := state.Session("s").Entries("agentMessage")
	if len(entries) != 1 || entries[0].ID != "m" {
		t.Fatalf("a changed result changed the state: %s", show(entries))
	}
}

func TestALoggedMessageStaysAsItCameWhenItsMapChanges(t *testing.T) {
	state := acp.NewClientState(v2unstable.StateTable)
	raw := `{"method": "session/update", "params": {"sessionId": "s", "update": {"sessionUpdate": "_vendor"}}}`
	message := stateMessage(t, json.RawMessage(raw))
	if applied := state.Apply(message); !applied.Logged {
		t.Fatalf("an unknown variant is logged, got %s", show(applied))
	}
	message["params"], message["method"] = "changed", "other"
	if got, want := show(state.Session("s").Log()), show([]any{stateMessage(t, json.RawMessage(raw))}); got != want {
		t.Fatalf("the log changed with the caller's map: %s", got)
	}
}

// "A session appears once a message touched it": reading one (a mistyped id) does not, and the
// state read early is the one the session's first message then fills.
func TestReadingASessionNoMessageTouchedMakesNothingAppear(t *testing.T) {
	state := acp.NewClientState(v2unstable.StateTable)
	early := state.Session("s")
	if len(state.Session("s-typo").Entries("agentMessage")) != 0 {
		t.Fatal("a session never touched reads empty")
	}
	if sessions := state.Snapshot()["sessions"].(map[string]any); len(sessions) != 0 {
		t.Fatalf("reading sessions made them appear: %v", sessions)
	}
	chunk := `{"method": "session/update", "params": {"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": {"type": "text", "text": "hi"}}}}`
	state.Apply(stateMessage(t, json.RawMessage(chunk)))
	sessions := state.Snapshot()["sessions"].(map[string]any)
	if _, ok := sessions["s"]; len(sessions) != 1 || !ok {
		t.Fatalf("the touched session alone appears, got %v", sessions)
	}
	if state.Session("s") != early || len(early.Entries("agentMessage")) != 1 {
		t.Fatal("the state read early is the one the first message fills")
	}
}

package tests

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	v2 "acp-protocol-sdk/v2"
	"acp-protocol-sdk/wire"
)

func clockAt(stamp string) func() string { return func() string { return stamp } }

func TestAChangeReturnsOnlyTheChangedFieldsNullForClearedOnesAndStampsUpdatedAt(t *testing.T) {
	// session-list.mdx: "Only include fields that have changed"; "Set to null to clear".
	store := &acp.SessionStore{Clock: clockAt("2026-11-26T10:00:00Z")}
	store.Create("s-1", "/work", wire.Some("First"))
	update, err := store.Change("s-1", acp.SessionChange{Title: wire.Null[string]()})
	if err != nil || string(update) != `{"sessionUpdate":"session_info_update","title":null,"updatedAt":"2026-11-26T10:00:00Z"}` {
		t.Fatalf("%s %v", update, err)
	}
	if update, _ := store.Change("s-1", acp.SessionChange{Title: wire.Null[string]()}); update != nil {
		t.Fatalf("nothing changed, yet %s", update)
	}
	if _, err := store.Change("nobody", acp.SessionChange{Title: wire.Some("x")}); err == nil {
		t.Fatal("a change to an unknown session was accepted")
	}
}

func TestATitleOver500CharactersIsTruncated(t *testing.T) {
	// Session-info RFD: "Agents should validate title length (recommend 500 chars max)".
	store := &acp.SessionStore{}
	record := store.Create("s-1", "/work", wire.Some(strings.Repeat("é", 600)))
	if got := len([]rune(*record.Title)); got != 500 {
		t.Fatalf("%d characters kept", got)
	}
}

func TestAMetaTooDeepOrTooLargeIsRejectedAndTheStateIsUnchanged(t *testing.T) {
	var problems []string
	store := &acp.SessionStore{MetaLimit: 64, OnProblem: func(p string) { problems = append(problems, p) }}
	store.Create("s-1", "/work", wire.Opt[string]{})
	big := map[string]json.RawMessage{"k": json.RawMessage(`"` + strings.Repeat("x", 100) + `"`)}
	if update, _ := store.Change("s-1", acp.SessionChange{Meta: wire.Some(big)}); update != nil {
		t.Fatalf("%s", update)
	}
	deep := strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70)
	if _, ok := store.ApplyUpdate("s-1", json.RawMessage(`{"sessionUpdate":"session_info_update","_meta":`+deep+`}`)); ok {
		t.Fatal("a _meta nested 70 deep was applied")
	}
	if record, _ := store.Get("s-1"); record.Meta != nil || len(problems) != 2 {
		t.Fatalf("%v %v", record.Meta, problems)
	}
}

func TestSessionListPagesWithAnOpaqueCursorAndRefusesOneItDidNotMake(t *testing.T) {
	// ListSessionsResponse.nextCursor: "present if there are more results".
	store := &acp.SessionStore{PageSize: 2}
	for _, id := range []string{"a", "b", "c"} {
		store.Create(id, "/work", wire.Opt[string]{})
	}
	store.Create("elsewhere", "/other", wire.Opt[string]{})
	first, err := store.ListSessions("/work", "")
	if err != nil || len(first.Sessions) != 2 || first.NextCursor == "" {
		t.Fatalf("%+v %v", first, err)
	}
	second, err := store.ListSessions("/work", first.NextCursor)
	if err != nil || len(second.Sessions) != 1 || second.Sessions[0].SessionID != "c" || second.NextCursor != "" {
		t.Fatalf("%+v %v", second, err)
	}
	_, err = store.ListSessions("", "not-ours")
	var rpcError *acp.Error
	if !asError(err, &rpcError) || rpcError.Code != acp.InvalidParams {
		t.Fatalf("%v", err)
	}
}

func asError(err error, target **acp.Error) bool {
	rpcError, ok := err.(*acp.Error)
	*target = rpcError
	return ok
}

func TestAStoreTakesTheEditionsMetaPolicyV1MergesV2PatchesByTopLevelKey(t *testing.T) {
	// v2 SessionInfoUpdate._meta: keys "replace the stored value" whole (patch); v1 merges.
	for _, c := range []struct {
		connect func(store *acp.SessionStore)
		want    string
	}{
		{func(store *acp.SessionStore) {
			conn, _ := v1.ConnectAgent(pipeEnd(t), v1.UnimplementedAgent{Sessions: store})
			t.Cleanup(func() { _ = conn.Close() })
		}, `{"k":{"a":1,"b":2}}`},
		{func(store *acp.SessionStore) {
			conn, _ := v2.ConnectAgent(pipeEnd(t), v2.UnimplementedAgent{Sessions: store})
			t.Cleanup(func() { _ = conn.Close() })
		}, `{"k":{"b":2}}`},
	} {
		store := &acp.SessionStore{}
		c.connect(store)
		store.Create("s", "/work", wire.Opt[string]{})
		_, _ = store.Change("s", acp.SessionChange{Meta: wire.Some(map[string]json.RawMessage{"k": json.RawMessage(`{"a":1}`)})})
		_, _ = store.Change("s", acp.SessionChange{Meta: wire.Some(map[string]json.RawMessage{"k": json.RawMessage(`{"b":2}`)})})
		record, _ := store.Get("s")
		if got, _ := json.Marshal(record.Meta); string(got) != c.want {
			t.Fatalf("%s, want %s", got, c.want)
		}
	}
}

func pipeEnd(t *testing.T) *acp.StreamTransport {
	ours, theirs := acp.Pipe()
	t.Cleanup(func() { _ = theirs.Close() })
	return ours
}

// listingAgent answers initialize with the capabilities it sets itself.
type listingAgent struct {
	v1.UnimplementedAgent
	capabilities v1.AgentCapabilities
}

func (a listingAgent) Initialize(context.Context, v1.InitializeRequest) (v1.InitializeResponse, error) {
	return v1.InitializeResponse{AgentCapabilities: wire.Some(a.capabilities)}, nil
}

func TestAnAgentWithSessionsAnswersSessionListAndAdvertisesItInInitialize(t *testing.T) {
	// InitializeResponse: agentCapabilities.sessionCapabilities.list, as the Python and
	// TypeScript SDKs advertise a store they answer from (and resume: the store answers it too).
	store := &acp.SessionStore{Clock: clockAt("2026-11-26T10:00:00Z")}
	store.Create("s-1", "/work", wire.Some("Fix the build"))
	loads := v1.AgentCapabilities{LoadSession: wire.Some(true)}
	_, peer := connect(t, v1.AgentHandler(listingAgent{v1.UnimplementedAgent{Sessions: store}, loads}))
	peer.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	if answer := nextMsg(peer); string(answer["result"]) != `{"agentCapabilities":{"loadSession":true,"sessionCapabilities":{"list":{},"resume":{}}},"protocolVersion":1}` {
		t.Fatalf("%s", answer["result"])
	}
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}`)
	if answer := nextMsg(peer); string(answer["result"]) != `{"sessions":[{"sessionId":"s-1","cwd":"/work","title":"Fix the build","updatedAt":"2026-11-26T10:00:00Z"}]}` {
		t.Fatalf("%v", answer)
	}
	_, bare := connect(t, v1.AgentHandler(listingAgent{}))
	bare.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	if answer := nextMsg(bare); string(answer["result"]) != `{"agentCapabilities":{},"protocolVersion":1}` {
		t.Fatalf("without Sessions: %s", answer["result"])
	}
	bare.send(`{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}}`)
	if answer := nextMsg(bare); !strings.Contains(string(answer["error"]), "-32601") {
		t.Fatalf("without Sessions: %v", answer)
	}
}

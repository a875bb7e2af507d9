package tests

// The client state fed by the generated code, with no code in the client: ClientHandler applies
// what the agent sends (before the client's own method sees it), AgentPeer applies what the
// client sends and the answers it gets back, and both the connection's peer (SessionState,
// StateSnapshot, OnStateChange) and the v2 session view expose it. Against an agent written by
// hand (rawPeer), v1 and v2.

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	v2 "acp-protocol-sdk/v2"
)

// stateClient records, in its SessionUpdate, the agent message's text the state held then.
type stateClient struct {
	v2.UnimplementedClient
	agent v2.AgentPeer

	mu   sync.Mutex
	seen []string
}

func (c *stateClient) SessionUpdate(context.Context, v2.UpdateSessionNotification) {
	text := ""
	for _, item := range c.agent.SessionState("s-1").Entries("agentMessage") {
		raw, _ := json.Marshal(item.Value.(map[string]any)["content"])
		text = string(raw)
	}
	c.mu.Lock()
	c.seen = append(c.seen, text)
	c.mu.Unlock()
}

func jsonEqual(t *testing.T, got any, want string) {
	t.Helper()
	var expected any
	if err := json.Unmarshal([]byte(want), &expected); err != nil {
		t.Fatal(err)
	}
	if show(asJSON(t, got)) != show(expected) {
		t.Fatalf("\n got %s\nwant %s", show(asJSON(t, got)), show(expected))
	}
}

func TestTheV2ClientKeepsTheStateItsMessagesLeft(t *testing.T) {
	client := &stateClient{}
	conn, peer := connect(t, v2.ClientHandler(client))
	client.agent = v2.AgentPeer{Conn: conn}
	view := client.agent.Session("s-1")
	var mu sync.Mutex
	var changed []string
	view.OnStateChange(func(applied acp.StateApplied) {
		mu.Lock()
		defer mu.Unlock()
		for _, change := range applied.Changes {
			changed = append(changed, change.Target+" "+change.Action)
		}
	})

	// session/new's answer: "the new session's config options" (NewSessionResponse x-state).
	answered := make(chan error, 1)
	go func() {
		_, err := client.agent.SessionNew(within(t), v2.NewSessionRequest{Cwd: "/w"})
		answered <- err
	}()
	request, _ := peer.next()
	peer.send(`{"jsonrpc":"2.0","id":` + string(request["id"]) + `,"result":{"sessionId":"s-1","configOptions":[{"id":"mode","name":"Mode","type":"select","currentValue":"ask","options":[{"value":"ask","name":"Ask"}]}]}}`)
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"Hel"}}}}`)
	peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"lo"}}}}`)
	peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","title":"Read a.txt","status":"in_progress"}}}`)
	// A request is answered beside the notification loop: the update first, then the request.
	waitFor(t, func() bool { return len(view.SessionState().Entries("toolCall")) == 1 })
	peer.send(`{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"s-1","title":"Allow?","options":[{"optionId":"ok","name":"Allow","kind":"allow_once"}],"subject":{"type":"tool_call","toolCall":{"toolCallId":"t1","status":"pending"}}}}`)
	peer.next() // the client answers the permission request (-32601: it does not implement it)
	peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"_vendor_progress","percent":40}}}`)
	waitFor(t, func() bool { return len(view.SessionState().Log()) == 1 })

	jsonEqual(t, view.StateSnapshot(), `{
		"targets": {
			"configOptions": [{"id": "mode", "name": "Mode", "type": "select", "currentValue": "ask", "options": [{"value": "ask", "name": "Ask"}]}],
			"agentMessage": [{"id": "m1", "value": {"messageId": "m1", "content": [{"type": "text", "text": "Hel"}, {"type": "text", "text": "lo"}]}}],
			"toolCall": [{"id": "t1", "value": {"toolCallId": "t1", "title": "Read a.txt", "status": "pending"}}]
		},
		"log": [{"method": "session/update", "params": {"sessionId": "s-1", "update": {"sessionUpdate": "_vendor_progress", "percent": 40}}}],
		"problems": []
	}`)
	mu.Lock()
	// session/new's answer names no commands: "Omitted or empty means no initial commands are
	// advertised" (NewSessionResponse.availableCommands).
	jsonEqual(t, changed, `["configOptions replace", "availableCommands replace", "agentMessage append", "agentMessage append", "toolCall upsert", "toolCall upsert"]`)
	mu.Unlock()
	client.mu.Lock() // the client's method saw each update already applied
	jsonEqual(t, client.seen[:2], `["[{\"text\":\"Hel\",\"type\":\"text\"}]", "[{\"text\":\"Hel\",\"type\":\"text\"},{\"text\":\"lo\",\"type\":\"text\"}]"]`)
	client.mu.Unlock()
	jsonEqual(t, client.agent.StateSnapshot()["sessions"], `{"s-1": `+show(asJSON(t, view.StateSnapshot()))+`}`)
}

func TestAV1ClientKeysChunksWithoutMessageIdByThePromptTurnItSent(t *testing.T) {
	conn, peer := connect(t, v1.ClientHandler(v1.UnimplementedClient{}))
	agent := v1.AgentPeer{Conn: conn}
	var mu sync.Mutex
	var heard []string
	agent.OnStateChange(func(applied acp.StateApplied) {
		mu.Lock()
		defer mu.Unlock()
		for _, change := range applied.Changes {
			heard = append(heard, *change.Session+" "+change.Target+" "+*change.ID)
		}
	}, "s-1")
	for turn := 1; turn <= 2; turn++ {
		answered := make(chan error, 1)
		go func() {
			_, err := agent.SessionPrompt(within(t), v1.PromptRequest{SessionID: "s-1", Prompt: []v1.ContentBlock{v1.ContentBlockText{Text: "hi"}}})
			answered <- err
		}()
		request, _ := peer.next()
		for _, text := range []string{"Hel", "lo"} {
			peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + text + `"}}}}`)
		}
		peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-2","update":{"sessionUpdate":"plan","entries":[]}}}`)
		peer.send(`{"jsonrpc":"2.0","id":` + string(request["id"]) + `,"result":{"stopReason":"end_turn"}}`)
		if err := <-answered; err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool { _, ok := agent.SessionState("s-2").Get("plan"); return ok })
	message := `{"type": "text", "text": "Hel"}, {"type": "text", "text": "lo"}`
	jsonEqual(t, agent.SessionState("s-1").Entries("agentMessage"), `[
		{"id": "turn:1", "value": {"messageId": "turn:1", "content": [`+message+`]}},
		{"id": "turn:2", "value": {"messageId": "turn:2", "content": [`+message+`]}}
	]`)
	mu.Lock()
	defer mu.Unlock()
	jsonEqual(t, heard, `["s-1 agentMessage turn:1", "s-1 agentMessage turn:1", "s-1 agentMessage turn:2", "s-1 agentMessage turn:2"]`)
}

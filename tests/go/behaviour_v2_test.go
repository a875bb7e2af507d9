package tests

// ACP v2's behaviour, carried out by the Go runtime from the edition's generated Behaviour: the
// schema's descriptions are the rules quoted here.

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	acp "acp-protocol-sdk"
	v2 "acp-protocol-sdk/v2"
)

// v2Agent is an agent whose prompt work does what the prompt's first text block says.
type v2Agent struct {
	v2.UnimplementedAgent
	asked chan string // the work's ctx cause, once it ended, for "wait"
}

func (v2Agent) Initialize(_ context.Context, params v2.InitializeRequest) (v2.InitializeResponse, error) {
	// A careless agent echoes the version asked: the SDK answers its own.
	return v2.InitializeResponse{ProtocolVersion: params.ProtocolVersion, Info: v2.Implementation{Name: "test-agent", Version: "1"}}, nil
}

func (a v2Agent) SessionPrompt(ctx context.Context, params v2.PromptRequest) (string, error) {
	text := ""
	if block, ok := params.Prompt[0].(v2.ContentBlockText); ok {
		text = block.Text
	}
	client := v2.ClientOf(ctx)
	switch text {
	case "wait": // until cancelled, with a permission request pending
		_, err := client.SessionRequestPermission(ctx, v2.RequestPermissionRequest{SessionID: params.SessionID, Title: "go on?", Options: goOn})
		a.asked <- context.Cause(ctx).Error()
		return "", err
	case "ask": // one permission request, answered
		if _, err := client.SessionRequestPermission(ctx, v2.RequestPermissionRequest{SessionID: params.SessionID, Title: "go on?", Options: goOn}); err != nil {
			return "", err
		}
		return "", nil
	case "fail":
		return "", errors.New("the model is down")
	}
	return "max_tokens", nil
}

var goOn = []v2.PermissionOption{{OptionID: "go", Name: "Go on", Kind: v2.PermissionOptionKindAllowOnce}}

func v2Peer(t *testing.T) *rawPeer {
	t.Helper()
	_, peer := connect(t, v2.AgentHandler(v2Agent{asked: make(chan string, 1)}))
	return peer
}

func prompt(id int, text string) string {
	return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"session/prompt","params":{"sessionId":"s-1","prompt":[{"type":"text","text":"` + text + `"}]}}`
}

func itoa(n int) string {
	text, _ := json.Marshal(n)
	return string(text)
}

// update is the `update` of a session/update notification, or fails the test.
func update(t *testing.T, msg map[string]json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var params struct {
		SessionID string                     `json:"sessionId"`
		Update    map[string]json.RawMessage `json:"update"`
	}
	if string(msg["method"]) != `"session/update"` || json.Unmarshal(msg["params"], &params) != nil || params.SessionID != "s-1" {
		t.Fatalf("not a session/update of s-1: %v", msg)
	}
	return params.Update
}

// state is the state of a state_update (and its stop reason), or fails the test.
func state(t *testing.T, msg map[string]json.RawMessage) (string, string) {
	t.Helper()
	u := update(t, msg)
	var kind, value, reason string
	_ = json.Unmarshal(u["sessionUpdate"], &kind)
	_ = json.Unmarshal(u["state"], &value)
	_ = json.Unmarshal(u["stopReason"], &reason)
	if kind != "state_update" {
		t.Fatalf("not a state_update: %v", u)
	}
	return value, reason
}

// inserted reads what an insertion writes: the echo, running, the answer; the message id.
func inserted(t *testing.T, peer *rawPeer, id int) string {
	t.Helper()
	echo := update(t, nextMsg(peer))
	if string(echo["sessionUpdate"]) != `"user_message"` || string(echo["content"]) != `[{"type":"text","text":"`+textOf(t, echo)+`"}]` {
		t.Fatalf("the prompt is not echoed: %v", echo)
	}
	if value, _ := state(t, nextMsg(peer)); value != "running" {
		t.Fatalf("then %q, not running", value)
	}
	answer, _ := peer.next()
	var result struct {
		MessageID string `json:"messageId"`
	}
	if string(answer["id"]) != itoa(id) || json.Unmarshal(answer["result"], &result) != nil || result.MessageID == "" {
		t.Fatalf("the prompt is not answered with its message id: %v", answer)
	}
	if string(echo["messageId"]) != `"`+result.MessageID+`"` {
		t.Fatalf("the echo's id %s is not the answer's %s", echo["messageId"], result.MessageID)
	}
	return result.MessageID
}

func nextMsg(peer *rawPeer) map[string]json.RawMessage {
	msg, _ := peer.next()
	return msg
}

func textOf(t *testing.T, echo map[string]json.RawMessage) string {
	t.Helper()
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(echo["content"], &blocks) != nil || len(blocks) != 1 {
		t.Fatalf("no prompt in the echo: %v", echo)
	}
	return blocks[0].Text
}

func TestInitializeAnswersTheHighestVersionAtOrBelowTheOneAsked(t *testing.T) {
	// InitializeResponse.protocolVersion: "the highest protocol version supported by the agent
	// that is at or below the version requested by the client".
	peer := v2Peer(t)
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7,"info":{"name":"c","version":"1"}}}`)
	answer, _ := peer.next()
	var result v2.InitializeResponse
	if err := json.Unmarshal(answer["result"], &result); err != nil || result.ProtocolVersion != 2 {
		t.Fatalf("%s", answer["result"])
	}
}

func TestInitializeBelowEveryVersionFails32022(t *testing.T) {
	// "If no such version exists, initialization fails with error code -32022."
	peer := v2Peer(t)
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"info":{"name":"c","version":"1"}}}`)
	answer, _ := peer.next()
	code, data := errorCode(t, answer)
	if code != -32022 || string(data) != `{"requested":1,"supported":[2]}` {
		t.Fatalf("%d %s", code, data)
	}
}

func TestAV1ClientsInitializeIsAVersionErrorNotOneAboutItsParams(t *testing.T) {
	// A v1 client sends v1's params (no `info`): the version is checked before their shape, so
	// it learns which versions meet, not that a v2 field is missing.
	peer := v2Peer(t)
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	answer, _ := peer.next()
	code, data := errorCode(t, answer)
	if code != -32022 || string(data) != `{"requested":1,"supported":[2]}` {
		t.Fatalf("%d %s", code, data)
	}
}

func TestAPromptIsAnsweredAtInsertionThenItsWorkReportsIdleWithItsStopReason(t *testing.T) {
	// PromptResponse: "Response acknowledging that a user prompt was inserted into the ACP
	// conversation. [...] Processing and completion are reported through `state_update`
	// session updates."
	peer := v2Peer(t)
	peer.send(prompt(1, "hello"))
	inserted(t, peer, 1)
	if value, reason := state(t, nextMsg(peer)); value != "idle" || reason != "max_tokens" {
		t.Fatalf("%s %s", value, reason)
	}
}

func TestSessionCancelCancelsTheWorksPendingRequestAndEndsItIdleCancelled(t *testing.T) {
	// CancelSessionNotification: "cancel a session's foreground work"; its nested request is
	// cancelled with it ($/cancel_request), and the idle update says `cancelled`.
	peer := v2Peer(t)
	peer.send(prompt(1, "wait"))
	inserted(t, peer, 1)
	if value, _ := state(t, nextMsg(peer)); value != "requires_action" {
		t.Fatalf("%s before a permission request", value)
	}
	asked := nextMsg(peer)
	if string(asked["method"]) != `"session/request_permission"` {
		t.Fatalf("%v", asked)
	}
	peer.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s-1"}}`)
	cancel := nextMsg(peer)
	if string(cancel["method"]) != `"$/cancel_request"` || string(cancel["params"]) != `{"requestId":`+string(asked["id"])+`}` {
		t.Fatalf("the permission request is not cancelled: %v", cancel)
	}
	if value, reason := state(t, nextMsg(peer)); value != "idle" || reason != "cancelled" {
		t.Fatalf("%s %s", value, reason)
	}
}

func TestAPromptSentWhileWorkRunsIsHeldAndSessionCancelAnswersIt32800(t *testing.T) {
	peer := v2Peer(t)
	peer.send(prompt(1, "wait"))
	inserted(t, peer, 1)
	state(t, nextMsg(peer)) // requires_action
	nextMsg(peer)           // the permission request
	peer.send(prompt(2, "hello"))
	peer.quiet() // held: not inserted while the work runs
	peer.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s-1"}}`)
	var heldAnswer, idle map[string]json.RawMessage
	for heldAnswer == nil || idle == nil {
		msg := nextMsg(peer)
		switch {
		case string(msg["id"]) == "2":
			heldAnswer = msg
		case string(msg["method"]) == `"session/update"`:
			idle = msg
		}
	}
	if code, data := errorCode(t, heldAnswer); code != acp.RequestCancelled || string(data) != `{"reason":"session/cancel"}` {
		t.Fatalf("%d %s", code, data)
	}
	if value, reason := state(t, idle); value != "idle" || reason != "cancelled" {
		t.Fatalf("%s %s", value, reason)
	}
}

func TestAHeldPromptIsInsertedWhenTheWorkAheadOfItEnds(t *testing.T) {
	peer := v2Peer(t)
	peer.send(prompt(1, "ask"))
	inserted(t, peer, 1)
	state(t, nextMsg(peer)) // requires_action
	asked := nextMsg(peer)
	peer.send(prompt(2, "hello"))
	peer.quiet()
	peer.send(`{"jsonrpc":"2.0","id":` + string(asked["id"]) + `,"result":{"outcome":{"outcome":"cancelled"}}}`)
	// StateUpdate: "Once reported, it MUST report `running` when progress resumes".
	if value, _ := state(t, nextMsg(peer)); value != "running" {
		t.Fatalf("%s once the permission was answered", value)
	}
	if value, reason := state(t, nextMsg(peer)); value != "idle" || reason != "end_turn" {
		t.Fatalf("%s %s", value, reason)
	}
	inserted(t, peer, 2)
	if value, reason := state(t, nextMsg(peer)); value != "idle" || reason != "max_tokens" {
		t.Fatalf("%s %s", value, reason)
	}
}

func TestSessionCloseAnswersOnceTheIdleUpdateIsWritten(t *testing.T) {
	// CloseSessionRequest: "When closing cancels active foreground work, the Agent MUST send the
	// final updates for that work and the idle `state_update` with `stopReason: "cancelled"`
	// before responding successfully to `session/close`."
	peer := v2Peer(t)
	peer.send(prompt(1, "wait"))
	inserted(t, peer, 1)
	state(t, nextMsg(peer))
	nextMsg(peer)
	peer.send(`{"jsonrpc":"2.0","id":9,"method":"session/close","params":{"sessionId":"s-1"}}`)
	nextMsg(peer) // $/cancel_request of the permission request
	if value, reason := state(t, nextMsg(peer)); value != "idle" || reason != "cancelled" {
		t.Fatalf("%s %s", value, reason)
	}
	answer := nextMsg(peer)
	if string(answer["id"]) != "9" || string(answer["result"]) != `{}` {
		t.Fatalf("%v", answer)
	}
	// "Closing a session that does not exist or is not active SHOULD succeed".
	peer.send(`{"jsonrpc":"2.0","id":10,"method":"session/close","params":{"sessionId":"nobody"}}`)
	if answer := nextMsg(peer); string(answer["result"]) != `{}` {
		t.Fatalf("%v", answer)
	}
}

func TestAFailedWorkEndsIdleWithTheErrorStopReasonAndTheError(t *testing.T) {
	peer := v2Peer(t)
	peer.send(prompt(1, "fail"))
	inserted(t, peer, 1)
	idle := nextMsg(peer)
	if value, reason := state(t, idle); value != "idle" || reason != "error" {
		t.Fatalf("%s %s", value, reason)
	}
	var failure acp.Error
	if json.Unmarshal(update(t, idle)["error"], &failure) != nil || failure.Code != acp.InternalError {
		t.Fatalf("%s", update(t, idle)["error"])
	}
}

func TestCancellingAnUnknownToolCallIsAnswered32602NamingIt(t *testing.T) {
	// CancelToolCallRequest: "the Agent responds with `-32602` if the tool call is unknown,
	// already final, or not cancellable."
	peer := v2Peer(t)
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"tool_call/cancel","params":{"sessionId":"s-1","toolCallId":"t-9"}}`)
	code, data := errorCode(t, nextMsg(peer))
	if code != -32602 || string(data) != `{"toolCallId":"t-9"}` {
		t.Fatalf("%d %s", code, data)
	}
}

// patientClient answers permission requests only once their ctx ends.
type patientClient struct {
	v2.UnimplementedClient
}

func (patientClient) SessionRequestPermission(ctx context.Context, _ v2.RequestPermissionRequest) (v2.RequestPermissionResponse, error) {
	<-ctx.Done()
	return v2.RequestPermissionResponse{}, ctx.Err()
}

func TestAPermissionRequestTheAgentCancelsIsAnsweredTheCancelledOutcome(t *testing.T) {
	// RequestPermissionOutcome: "the client answers a request the agent cancels with
	// `$/cancel_request` with this outcome."
	_, peer := connect(t, v2.ClientHandler(patientClient{}))
	peer.send(`{"jsonrpc":"2.0","id":4,"method":"session/request_permission","params":{"sessionId":"s-1","title":"go on?","options":[{"optionId":"go","name":"Go on","kind":"allow_once"}]}}`)
	peer.quiet()
	peer.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":4}}`)
	answer := nextMsg(peer)
	if string(answer["id"]) != "4" || string(answer["result"]) != `{"outcome":{"outcome":"cancelled"}}` {
		t.Fatalf("%v", answer)
	}
}

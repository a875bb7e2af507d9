package tests

// The client's session view (acp.SessionView, made by v2.AgentPeer.Session): a prompt's message
// id at insertion, the session's updates, and the wait until its work is idle with the stop
// reason. Against our Go v2 agent over a pipe, and against a raw agent writing frames by hand.

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	acp "acp-protocol-sdk"
	v2 "acp-protocol-sdk/v2"
	"acp-protocol-sdk/wire"
)

// viewClient records, in its SessionUpdate, how many updates the session's view had then.
type viewClient struct {
	v2.UnimplementedClient
	view func() *acp.SessionView[v2.SessionUpdate, v2.ContentBlock]

	mu   sync.Mutex
	seen []int
}

func (c *viewClient) SessionUpdate(_ context.Context, _ v2.UpdateSessionNotification) {
	if c.view == nil {
		return
	}
	count := len(c.view().Updates())
	c.mu.Lock()
	c.seen = append(c.seen, count)
	c.mu.Unlock()
}

func (c *viewClient) SessionRequestPermission(ctx context.Context, _ v2.RequestPermissionRequest) (v2.RequestPermissionResponse, error) {
	<-ctx.Done() // the user never answers: the agent's $/cancel_request ends it
	return v2.RequestPermissionResponse{}, ctx.Err()
}

// pairV2 connects our Go v2 client to our Go v2 agent (v2Agent) over a pipe.
func pairV2(t *testing.T, client v2.Client) v2.AgentPeer {
	t.Helper()
	ours, theirs := acp.Pipe()
	agentConn, _ := v2.ConnectAgent(theirs, v2Agent{asked: make(chan string, 1)})
	clientConn, agent := v2.ConnectClient(ours, client)
	t.Cleanup(func() {
		_ = clientConn.Close()
		_ = agentConn.Close()
	})
	return agent
}

func text(words string) []v2.ContentBlock {
	return []v2.ContentBlock{v2.ContentBlockText{Text: words}}
}

func within(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	t.Cleanup(cancel)
	return ctx
}

func kinds(updates []v2.SessionUpdate) []string {
	var out []string
	for _, u := range updates {
		raw, _ := json.Marshal(u)
		var fields struct {
			Kind   string `json:"sessionUpdate"`
			State  string `json:"state"`
			Reason string `json:"stopReason"`
		}
		_ = json.Unmarshal(raw, &fields)
		out = append(out, fields.Kind+":"+fields.State+":"+fields.Reason)
	}
	return out
}

func TestTheViewsPromptReturnsTheInsertedMessagesIDAndIdleItsStopReason(t *testing.T) {
	// PromptResponse: "Response acknowledging that a user prompt was inserted into the ACP
	// conversation. [...] Processing and completion are reported through `state_update`
	// session updates."
	agent := pairV2(t, &viewClient{})
	view := agent.Session("s-1")
	id, err := view.Prompt(within(t), text("hello"))
	if err != nil || id == "" {
		t.Fatalf("%q %v", id, err)
	}
	// PromptResponse.messageId: "The corresponding user-message session update carries this
	// same identifier": it is in the view when Prompt returns.
	echo, ok := view.Updates()[0].(v2.SessionUpdateUserMessage)
	if !ok || string(echo.MessageID) != id {
		t.Fatalf("the first update is not the echo of %s: %v", id, view.Updates())
	}
	reason, err := view.Idle(within(t), id)
	if err != nil || reason != "max_tokens" {
		t.Fatalf("%q %v", reason, err)
	}
	if got := kinds(view.Updates()); !slices.Equal(got, []string{"user_message::", "state_update:running:", "state_update:idle:max_tokens"}) {
		t.Fatalf("%v", got)
	}
	if state, stop := view.State(); state != "idle" || stop != "max_tokens" {
		t.Fatalf("%s %s", state, stop)
	}
	if agent.Session("s-1") != view {
		t.Fatal("a second Session of one id is another view")
	}
}

func TestAViewIsFedBeforeTheClientsOwnSessionUpdateSeesTheUpdate(t *testing.T) {
	client := &viewClient{}
	agent := pairV2(t, client)
	view := agent.Session("s-1")
	client.view = func() *acp.SessionView[v2.SessionUpdate, v2.ContentBlock] { return view }
	id, err := view.Prompt(within(t), text("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := view.Idle(within(t), id); err != nil {
		t.Fatal(err)
	}
	// Idle returns as the view takes the idle update, which may be before SessionUpdate sees it.
	waitFor(t, func() bool { client.mu.Lock(); defer client.mu.Unlock(); return len(client.seen) == 3 })
	client.mu.Lock()
	defer client.mu.Unlock()
	if !slices.Equal(client.seen, []int{1, 2, 3}) {
		t.Fatalf("the view had %v updates as each reached SessionUpdate", client.seen)
	}
}

func TestANewSessionIsIdleUntilAStateUpdateReportsOtherwise(t *testing.T) {
	// StateUpdate: "A new session defaults to idle until a state update reports otherwise."
	agent := pairV2(t, &viewClient{})
	view := agent.Session("s-new")
	if state, stop := view.State(); state != "idle" || stop != "" {
		t.Fatalf("%s %s", state, stop)
	}
	if reason, err := view.Idle(within(t), ""); err != nil || reason != "" {
		t.Fatalf("%q %v", reason, err)
	}
}

func TestSessionCancelFromTheViewEndsTheWorkCancelledAndTheHeldPrompt32800(t *testing.T) {
	// CancelSessionNotification: "cancel a session's foreground work and its prompts not yet
	// inserted".
	agent := pairV2(t, &viewClient{})
	view := agent.Session("s-1")
	first, err := view.Prompt(within(t), text("wait"))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { state, _ := view.State(); return state == "requires_action" })
	held := make(chan error, 1)
	go func() {
		_, err := view.Prompt(within(t), text("hello"))
		held <- err
	}()
	time.Sleep(100 * time.Millisecond) // the second prompt reaches the agent, which holds it
	if err := view.Cancel(); err != nil {
		t.Fatal(err)
	}
	var failure *acp.Error
	if err := <-held; !errors.As(err, &failure) || failure.Code != acp.RequestCancelled {
		t.Fatalf("the held prompt: %v", err)
	}
	if reason, err := view.Idle(within(t), first); err != nil || reason != "cancelled" {
		t.Fatalf("%q %v", reason, err)
	}
}

func TestAGracefulIdleSendsSessionCancelWhenItsContextEndsAndWaitsForTheIdleUpdate(t *testing.T) {
	agent := pairV2(t, &viewClient{})
	view := agent.Session("s-1")
	id, err := view.Prompt(within(t), text("wait"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitFor(t, func() bool { state, _ := view.State(); return state == "requires_action" })
		cancel() // Ctrl-C
	}()
	if reason, err := view.Idle(acp.Graceful(ctx), id); err != nil || reason != "cancelled" {
		t.Fatalf("%q %v", reason, err)
	}
}

// rawAgent is a v2 client connection whose agent is written by hand, and the client's view of
// session s-1.
func rawAgent(t *testing.T) (*acp.Connection, *rawPeer, *acp.SessionView[v2.SessionUpdate, v2.ContentBlock]) {
	t.Helper()
	conn, peer := connect(t, v2.ClientHandler(&viewClient{}))
	return conn, peer, v2.AgentPeer{Conn: conn}.Session("s-1")
}

func (p *rawPeer) stateUpdate(fields string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"state_update",` + fields + `}}}`)
}

func (p *rawPeer) echo(messageID string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"user_message","messageId":"` + messageID + `"}}}`)
}

func TestIdleOfAMessageWaitsForTheIdleAfterItsEchoHoweverEarlyItCame(t *testing.T) {
	_, peer, view := rawAgent(t)
	peer.echo("m1")
	peer.stateUpdate(`"state":"running"`)
	peer.stateUpdate(`"state":"idle","stopReason":"end_turn"`)
	peer.echo("m2")
	peer.stateUpdate(`"state":"running"`)
	if reason, err := view.Idle(within(t), "m1"); err != nil || reason != "end_turn" {
		t.Fatalf("m1: %q %v", reason, err)
	}
	second := make(chan string, 1)
	go func() {
		reason, _ := view.Idle(within(t), "m2")
		second <- reason
	}()
	select {
	case reason := <-second:
		t.Fatalf("m2 ended with m1's idle (%q)", reason)
	case <-time.After(100 * time.Millisecond):
	}
	peer.stateUpdate(`"state":"idle","stopReason":"max_tokens"`)
	if reason := <-second; reason != "max_tokens" {
		t.Fatalf("m2: %q", reason)
	}
}

func TestAMessageEchoedAsAUserMessageChunkIsInsertedToo(t *testing.T) {
	// PromptResponse.messageId: "The corresponding user-message session update carries this
	// same identifier". codex-acp 2.6.0 echoes a prompt as a user_message_chunk with its id.
	_, peer, view := rawAgent(t)
	peer.stateUpdate(`"state":"running"`)
	peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"user_message_chunk","messageId":"m1","content":{"type":"text","text":"hi"}}}}`)
	peer.stateUpdate(`"state":"idle","stopReason":"end_turn"`)
	if reason, err := view.Idle(within(t), "m1"); err != nil || reason != "end_turn" {
		t.Fatalf("m1: %q %v", reason, err)
	}
}

func TestAnOmittedOrNullStopReasonIsNotReported(t *testing.T) {
	// IdleStateUpdate: "Receivers treat an omitted, `null`, or malformed `stopReason` as the
	// agent not reporting one." (A malformed one, `7`, fails the generated decoder today: the
	// notification is dropped before it reaches the view.)
	_, peer, view := rawAgent(t)
	for _, idle := range []string{`"state":"idle","stopReason":null`, `"state":"idle"`} {
		peer.stateUpdate(`"state":"running"`)
		waitFor(t, func() bool { state, _ := view.State(); return state == "running" })
		peer.stateUpdate(idle)
		if reason, err := view.Idle(within(t), ""); err != nil || reason != "" {
			t.Fatalf("%s: %q %v", idle, reason, err)
		}
	}
}

func TestIdleStopsWaitingWhenItsContextEndsAndSendsNothing(t *testing.T) {
	_, peer, view := rawAgent(t)
	peer.echo("m1")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := view.Idle(ctx, "m1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v", err)
	}
	peer.quiet()
}

func TestAGracefulIdleSendsTheCancelOfItsSessionOnce(t *testing.T) {
	_, peer, view := rawAgent(t)
	peer.echo("m1")
	peer.stateUpdate(`"state":"running"`)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string, 1)
	go func() {
		reason, _ := view.Idle(acp.Graceful(ctx), "m1")
		done <- reason
	}()
	cancel()
	msg := nextMsg(peer)
	if string(msg["method"]) != `"session/cancel"` || string(msg["params"]) != `{"sessionId":"s-1"}` {
		t.Fatalf("%v", msg)
	}
	peer.quiet()
	peer.stateUpdate(`"state":"idle","stopReason":"cancelled"`)
	if reason := <-done; reason != "cancelled" {
		t.Fatalf("%q", reason)
	}
}

func TestTheViewSendsThePromptAndReadsTheMessageIDFromTheAnswer(t *testing.T) {
	_, peer, view := rawAgent(t)
	got := make(chan string, 1)
	go func() {
		id, err := view.Prompt(within(t), text("hi"))
		if err != nil {
			id = err.Error()
		}
		got <- id
	}()
	request := nextMsg(peer)
	if string(request["method"]) != `"session/prompt"` || string(request["params"]) != `{"sessionId":"s-1","prompt":[{"type":"text","text":"hi"}]}` {
		t.Fatalf("%v", request)
	}
	peer.send(`{"jsonrpc":"2.0","id":` + string(request["id"]) + `,"result":{"messageId":"m-7"}}`)
	if id := <-got; id != "m-7" {
		t.Fatal(id)
	}
	// "Required and non-null. Omission and explicit `null` are both invalid."
	failed := make(chan error, 1)
	go func() {
		_, err := view.Prompt(within(t), text("hi"))
		failed <- err
	}()
	request = nextMsg(peer)
	peer.send(`{"jsonrpc":"2.0","id":` + string(request["id"]) + `,"result":{"messageId":null}}`)
	var invalid *wire.DecodeError
	if err := <-failed; !errors.As(err, &invalid) || invalid.Pointer() != "/messageId" {
		t.Fatalf("a null messageId: %v", err)
	}
}

func TestOtherSessionsUpdatesAreNotInTheViewAndForgetStopsIt(t *testing.T) {
	_, peer, view := rawAgent(t)
	peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-2","update":{"sessionUpdate":"state_update","state":"running"}}}`)
	peer.stateUpdate(`"state":"running"`)
	waitFor(t, func() bool { return len(view.Updates()) == 1 })
	view.Forget()
	peer.stateUpdate(`"state":"idle"`)
	peer.send(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"state_update","state":"idle"}}}`)
	time.Sleep(50 * time.Millisecond)
	if len(view.Updates()) != 1 {
		t.Fatalf("%v", kinds(view.Updates()))
	}
}

func TestStreamYieldsTheUpdatesInOrderThenEachAsItArrives(t *testing.T) {
	_, peer, view := rawAgent(t)
	peer.echo("m1")
	peer.stateUpdate(`"state":"running"`)
	ctx, cancel := context.WithCancel(within(t))
	defer cancel()
	var got []string
	for update := range view.Stream(ctx) {
		got = append(got, kinds([]v2.SessionUpdate{update})...)
		if len(got) == 2 {
			peer.stateUpdate(`"state":"idle","stopReason":"end_turn"`)
		}
		if len(got) == 3 {
			break
		}
	}
	if !slices.Equal(got, []string{"user_message::", "state_update:running:", "state_update:idle:end_turn"}) {
		t.Fatalf("%v", got)
	}
	cancel()
	for range view.Stream(ctx) { // a ctx that ended: what has arrived, then the end
	}
}

func TestTheConnectionsCloseEndsIdleAndStreamAndLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 10 {
		ours, theirs := acp.Pipe()
		conn, agent := v2.ConnectClient(ours, &viewClient{})
		view := agent.Session("s-1")
		ended := make(chan error, 2)
		go func() {
			_, err := view.Idle(acp.Graceful(context.Background()), "never")
			ended <- err
		}()
		go func() {
			for range view.Stream(context.Background()) {
			}
			ended <- nil
		}()
		_ = conn.Close()
		if err := <-ended; err != nil && !errors.Is(err, acp.ErrConnectionClosed) {
			t.Fatalf("%v", err)
		}
		<-ended
		_ = theirs.Close()
	}
	deadline := time.Now().Add(patience)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		buffer := make([]byte, 1<<16)
		t.Fatalf("%d goroutines before, %d after:\n%s", before, after, buffer[:runtime.Stack(buffer, true)])
	}
}

// waitFor polls check until it holds, or fails the test.
func waitFor(t *testing.T, check func() bool) {
	deadline := time.Now().Add(patience)
	for !check() {
		if time.Now().After(deadline) {
			t.Error("timed out")
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

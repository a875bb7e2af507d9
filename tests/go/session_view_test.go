package tests

// The client's session view (acp.SessionView, made by v2.AgentPeer.Session): a prompt's message
// id at insertion, the session's updates, and the wait until its work is idle with the stop
// reason, against our Go v2 agent over a pipe (against a raw agent writing frames by hand:
// session_view_raw_test.go).

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

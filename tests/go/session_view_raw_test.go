package tests

// The client's session view (acp.SessionView) against a raw v2 agent writing frames by hand: when
// idle is reported for a message, stop reasons omitted or null, the prompt's message id read from
// the answer, other sessions' updates, and the stream of updates in order.

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	acp "acp-protocol-sdk"
	v2 "acp-protocol-sdk/v2"
	"acp-protocol-sdk/wire"
)

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

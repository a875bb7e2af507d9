package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
)

func TestIDsAreEchoedExactlyAsTheyCame(t *testing.T) {
	_, peer := connect(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"echo": echo}})
	for _, id := range []string{`"a\u0062"`, `-7`, `"x y"`, `9007199254740993`, `9223372036854775807`, `-9223372036854775808`} {
		peer.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"echo","params":{"k":[1]}}`)
		answer, frame := peer.next()
		if string(answer["id"]) != id || string(answer["result"]) != `{"k":[1]}` {
			t.Errorf("request id %s answered %s", id, frame)
		}
	}
}

// ACP's RequestId is "an integer (format int64) or a string": an id with a fraction or an
// exponent, or beyond int64, is not usable, so the request is invalid and its id unknown (§5:
// "If there was an error in detecting the id in the Request object … it MUST be Null").
func TestAnIDThatIsNotAnInt64IntegerOrAStringIsRefused32600WithANullID(t *testing.T) {
	_, peer := connect(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"echo": echo}})
	for _, id := range []string{`1.0`, `1e3`, `12345678901234567890`, `true`, `null`} {
		peer.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"echo","params":{}}`)
		answer, frame := peer.next()
		if code, _ := errorCode(t, answer); code != acp.InvalidRequest || string(answer["id"]) != "null" {
			t.Errorf("request id %s answered %s", id, frame)
		}
	}
}

func TestAnUnknownMethodIsAnswered32601(t *testing.T) {
	_, peer := connect(t, acp.MethodHandlers{})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"nope"}`)
	answer, _ := peer.next()
	if code, data := errorCode(t, answer); code != acp.MethodNotFound || string(data) != `{"method":"nope"}` {
		t.Fatalf("%d %s", code, data)
	}
}

func TestAFrameThatIsNotJSONIsAnswered32700WithANullID(t *testing.T) {
	_, peer := connect(t, acp.MethodHandlers{})
	peer.send(`{"jsonrpc":"2.0","id":1,`)
	answer, _ := peer.next()
	if code, _ := errorCode(t, answer); code != acp.ParseError || string(answer["id"]) != "null" {
		t.Fatalf("%v", answer)
	}
}

func TestACancelFromThePeerEndsTheHandlersContextAndIsAnswered32800(t *testing.T) {
	started, causes := make(chan struct{}, 1), make(chan error, 1)
	_, peer := connect(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"slow": blocking(started, causes)}})
	peer.send(`{"jsonrpc":"2.0","id":"r1","method":"slow"}`)
	<-started
	// The same id written another way is the same request.
	peer.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"\u0072\u0031"}}`)
	if cause := <-causes; !errors.Is(cause, acp.ErrCancelledByPeer) {
		t.Fatalf("the handler's ctx ended with %v", cause)
	}
	answer, _ := peer.next()
	code, data := errorCode(t, answer)
	if code != acp.RequestCancelled || string(answer["id"]) != `"r1"` || string(data) != `{"requestId":"r1"}` {
		t.Fatalf("%d %s %s", code, answer["id"], data)
	}
}

func TestCancelsOfUnknownAndFinishedRequestsAreIgnored(t *testing.T) {
	_, peer := connect(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"echo": echo}})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}`)
	peer.next()
	peer.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`)
	peer.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"never"}}`)
	peer.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{}}`)
	peer.quiet()
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":[]}`)
	if answer, _ := peer.next(); string(answer["id"]) != "2" {
		t.Fatalf("%v", answer)
	}
}

func TestOurCancelledContextSendsTheCancelAndStopsWaiting(t *testing.T) {
	conn, peer := connect(t, acp.MethodHandlers{})
	ctx, cancel := context.WithCancel(context.Background())
	failed := make(chan error, 1)
	go func() {
		_, err := conn.Request(ctx, "session/prompt", map[string]string{"sessionId": "s"})
		failed <- err
	}()
	request, _ := peer.next()
	cancel()
	if err := <-failed; !errors.Is(err, context.Canceled) {
		t.Fatalf("the caller got %v", err)
	}
	notice, frame := peer.next()
	var params struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(notice["params"], &params)
	if string(notice["method"]) != `"$/cancel_request"` || string(params.RequestID) != string(request["id"]) || notice["id"] != nil {
		t.Fatalf("sent %s", frame)
	}
	// The answer that comes late is dropped; the connection goes on.
	peer.send(`{"jsonrpc":"2.0","id":` + string(request["id"]) + `,"error":{"code":-32800,"message":"Request cancelled"}}`)
	peer.quiet()
}

func TestAnErrorAnswerReachesTheCallerAsAnError(t *testing.T) {
	conn, peer := connect(t, acp.MethodHandlers{})
	failed := make(chan error, 1)
	go func() {
		_, err := conn.Request(context.Background(), "x", nil)
		failed <- err
	}()
	request, _ := peer.next()
	peer.send(`{"jsonrpc":"2.0","id":` + string(request["id"]) + `,"error":{"code":-32800,"message":"Request cancelled","data":{"why":1}}}`)
	var failure *acp.Error
	if err := <-failed; !errors.As(err, &failure) || failure.Code != acp.RequestCancelled || string(failure.Data) != `{"why":1}` {
		t.Fatalf("%v", err)
	}
}

// The cascade: a request a handler makes with its ctx is cancelled ($/cancel_request) when the
// handler's own request is, with no code in the handler for it.
func TestCancellingAPromptCancelsTheReadItIsWaitingOn(t *testing.T) {
	agentEnd, clientEnd := acp.Pipe()
	readStarted, readCause := make(chan struct{}, 1), make(chan error, 1)
	client := acp.NewConnection(clientEnd, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{
		v1.MethodFsReadTextFile: blocking(readStarted, readCause),
	}})
	var agent *acp.Connection
	promptErr := make(chan error, 1)
	agent = acp.NewConnection(agentEnd, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{
		v1.MethodSessionPrompt: func(ctx context.Context, _ json.RawMessage) (any, error) {
			_, err := agent.Request(ctx, v1.MethodFsReadTextFile, v1.ReadTextFileRequest{SessionID: "s", Path: "/tmp/x"})
			promptErr <- err
			return nil, err
		},
	}})
	defer agent.Close()
	defer client.Close()

	ctx, cancel := context.WithCancel(context.Background())
	answered := make(chan error, 1)
	go func() {
		_, err := client.Request(ctx, v1.MethodSessionPrompt, v1.PromptRequest{SessionID: "s"})
		answered <- err
	}()
	<-readStarted
	cancel()
	if err := <-answered; !errors.Is(err, context.Canceled) {
		t.Fatalf("the client's prompt: %v", err)
	}
	if cause := <-readCause; !errors.Is(cause, acp.ErrCancelledByPeer) {
		t.Fatalf("the nested read ended with %v", cause)
	}
	if err := <-promptErr; !errors.Is(err, acp.ErrCancelledByPeer) {
		t.Fatalf("the prompt handler's read: %v", err)
	}
}

func TestAHandlersOwnCancellationIsAnswered32800(t *testing.T) {
	_, peer := connect(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{
		"timeout": func(ctx context.Context, _ json.RawMessage) (any, error) {
			ctx, cancel := context.WithTimeout(ctx, time.Millisecond)
			defer cancel()
			<-ctx.Done()
			return nil, fmt.Errorf("model call: %w", ctx.Err())
		},
	}})
	peer.send(`{"jsonrpc":"2.0","id":9,"method":"timeout"}`)
	answer, _ := peer.next()
	if code, _ := errorCode(t, answer); code != acp.RequestCancelled {
		t.Fatalf("%v", answer)
	}
}

func TestInvalidParamsAreAnswered32602WithTheirPointer(t *testing.T) {
	_, peer := connect(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{
		v1.MethodSessionPrompt: func(_ context.Context, params json.RawMessage) (any, error) {
			var request v1.PromptRequest
			return nil, request.UnmarshalJSON(params)
		},
	}})
	peer.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":1}]}}`)
	answer, _ := peer.next()
	code, data := errorCode(t, answer)
	if code != acp.InvalidParams || sameJSON(data, []byte(`{"pointer":"/prompt/0/text","expected":"a string, got number 1"}`)) != "" {
		t.Fatalf("%d %s", code, data)
	}
}

func TestNotificationsAreHandledInTheOrderTheyCame(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	all := make(chan struct{})
	_, peer := connect(t, acp.MethodHandlers{Notifications: map[string]acp.NotificationFunc{
		v1.MethodSessionUpdate: func(_ context.Context, params json.RawMessage) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, string(params))
			if len(seen) == 500 {
				close(all)
			}
		},
	}})
	for i := range 500 {
		peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":[%d]}`, i))
	}
	select {
	case <-all:
	case <-time.After(patience):
		t.Fatal("not every notification was handled")
	}
	for i, params := range seen {
		if params != fmt.Sprintf("[%d]", i) {
			t.Fatalf("notification %d handled as %s", i, params)
		}
	}
}

func TestAFrameOverTheLimitIsDroppedAndItsRequestAnswered32600(t *testing.T) {
	ours, theirs := acp.Pipe()
	ours.SetFrameLimit(1024)
	conn := acp.NewConnection(ours, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"echo": echo}})
	defer conn.Close()
	big := `{"jsonrpc":"2.0","id":"big","method":"echo","params":"` + strings.Repeat("x", 5000) + `"}`
	go func() {
		_ = theirs.WriteFrame([]byte(big))
		_ = theirs.WriteFrame([]byte(`{"jsonrpc":"2.0","id":"small","method":"echo","params":[1]}`))
	}()
	for _, want := range []string{`"big"`, `"small"`} {
		frame, err := theirs.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		var answer map[string]json.RawMessage
		_ = json.Unmarshal(frame, &answer)
		if string(answer["id"]) != want {
			t.Fatalf("got %s", frame)
		}
		if want == `"big"` {
			if code, data := errorCode(t, answer); code != acp.InvalidRequest || string(data) != fmt.Sprintf(`{"limit":1024,"size":%d}`, len(big)) {
				t.Fatalf("%d %s", code, data)
			}
		}
	}
	_ = theirs.Close()
}

func TestTheConnectionClosesWhenThePeerEndsItsStream(t *testing.T) {
	ours, theirs := acp.Pipe()
	conn := acp.NewConnection(ours, acp.MethodHandlers{})
	failed := make(chan error, 1)
	go func() {
		_, err := conn.Request(context.Background(), "x", nil)
		failed <- err
	}()
	if _, err := theirs.ReadFrame(); err != nil {
		t.Fatal(err)
	}
	_ = theirs.Close()
	if err := <-failed; !errors.Is(err, acp.ErrPeerClosed) || !errors.Is(err, acp.ErrConnectionClosed) {
		t.Fatalf("the pending request failed with %v", err)
	}
	select {
	case <-conn.Done():
	case <-time.After(patience):
		t.Fatal("Done was not closed")
	}
	if _, err := conn.Request(context.Background(), "x", nil); !errors.Is(err, acp.ErrConnectionClosed) {
		t.Fatalf("a request after the close: %v", err)
	}
}

func TestNoGoroutineOutlivesClose(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 20 {
		ours, theirs := acp.Pipe()
		started, causes := make(chan struct{}, 4), make(chan error, 4)
		conn := acp.NewConnection(ours, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"slow": blocking(started, causes)}})
		peer := acp.NewConnection(theirs, acp.MethodHandlers{})
		pending := make(chan error, 4)
		for range 4 {
			go func() {
				_, err := peer.Request(context.Background(), "slow", nil)
				pending <- err
			}()
		}
		for range 4 {
			<-started
		}
		_ = conn.Close() // returns once its handlers have
		for range 4 {
			if cause := <-causes; !errors.Is(cause, acp.ErrConnectionClosed) {
				t.Fatalf("a handler's ctx ended with %v", cause)
			}
		}
		// Internal cancellation is answered as a cancel from the peer would be.
		for range 4 {
			var failure *acp.Error
			if err := <-pending; !errors.As(err, &failure) || failure.Code != acp.RequestCancelled {
				t.Fatalf("a pending request failed with %v", err)
			}
		}
		_ = peer.Close()
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

package tests

// The cancellation dialects (runtime/cancellation.go): a connection speaking MCP or LSP cancels
// requests as those protocols do, both ways, and ACP's default is unchanged.
//
//	ACP (default)  $/cancel_request         {requestId}          answered: a result or -32800
//	LSP            $/cancelRequest          {id}                 answered: a result or -32800
//	MCP            notifications/cancelled  {requestId, reason}  not answered

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	acp "acp-protocol-sdk"
)

// requested sends a request on conn in a goroutine; its outcome comes on the channel.
func requested(ctx context.Context, conn *acp.Connection, method string) <-chan error {
	failed := make(chan error, 1)
	go func() {
		_, err := conn.Request(ctx, method, map[string]any{})
		failed <- err
	}()
	return failed
}

// outcome waits for a request's outcome.
func outcome(t *testing.T, failed <-chan error) error {
	t.Helper()
	select {
	case err := <-failed:
		return err
	case <-time.After(patience):
		t.Fatal("the request is still waiting")
	}
	return nil
}

// MCP 2025-11-25: receivers SHOULD "Not send a response for the cancelled request"; "Both
// parties SHOULD log cancellation reasons": the handler's ctx ends with the peer's reason.
func TestAnMCPCancelledRequestIsNotAnswered(t *testing.T) {
	started, causes := make(chan struct{}, 1), make(chan error, 1)
	_, peer := connect(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{
		"tools/call": blocking(started, causes),
		"echo":       echo,
	}}, acp.Speaking(acp.MCP))
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
	<-started
	peer.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"the user pressed stop"}}`)
	cause := <-causes
	var reason acp.CancelReason
	if !errors.Is(cause, acp.ErrCancelledByPeer) || !errors.As(cause, &reason) || reason != "the user pressed stop" {
		t.Fatalf("the handler's ctx ended with %v", cause)
	}
	peer.quiet() // no -32800, no result: nothing
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":{}}`)
	if answer, _ := peer.next(); string(answer["id"]) != "2" {
		t.Fatalf("%v", answer)
	}
}

// MCP: "The sender of the cancellation notification SHOULD ignore any response to the request
// that arrives afterward": the caller stops waiting at once, even with a Graceful ctx (no
// answer will come), and gets its ctx's cause; the reason goes out as `reason`.
func TestOurMCPCancelSendsNotificationsCancelledWithItsReasonAndStopsWaiting(t *testing.T) {
	conn, peer := connect(t, acp.MethodHandlers{}, acp.Speaking(acp.MCP))
	ctx, cancel := context.WithCancelCause(acp.Graceful(context.Background()))
	failed := requested(ctx, conn, "tools/call")
	request, _ := peer.next()
	cancel(acp.CancelReason("the user pressed stop"))
	if err := outcome(t, failed); !errors.Is(err, acp.CancelReason("the user pressed stop")) {
		t.Fatalf("the caller got %v", err)
	}
	if _, frame := peer.next(); frame != `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"the user pressed stop","requestId":`+string(request["id"])+`}}` {
		t.Fatalf("sent %s", frame)
	}
	peer.send(`{"jsonrpc":"2.0","id":` + string(request["id"]) + `,"result":{"content":[]}}`)
	peer.quiet() // the late answer is dropped
}

// A cancelled handler's nested request is cancelled with it, in the connection's dialect and
// with the peer's reason.
func TestAnMCPCancelCascadesWithItsReason(t *testing.T) {
	nested := make(chan error, 1)
	var conn *acp.Connection
	conn, peer := connect(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{
		"tools/call": func(ctx context.Context, _ json.RawMessage) (any, error) {
			_, err := conn.Request(ctx, "sampling/createMessage", map[string]any{})
			nested <- err
			return nil, err
		},
	}}, acp.Speaking(acp.MCP))
	peer.send(`{"jsonrpc":"2.0","id":"call","method":"tools/call"}`)
	request, _ := peer.next()
	peer.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"call","reason":"stop"}}`)
	if _, frame := peer.next(); frame != `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"stop","requestId":`+string(request["id"])+`}}` {
		t.Fatalf("sent %s", frame)
	}
	if err := <-nested; !errors.Is(err, acp.ErrCancelledByPeer) {
		t.Fatalf("the nested request: %v", err)
	}
	peer.quiet()
}

// MCP: "The `initialize` request MUST NOT be cancelled by clients": our cancelled initialize
// sends nothing (a Graceful caller keeps waiting for its answer), and a cancel for the peer's
// is ignored.
func TestMCPNeverCancelsInitialize(t *testing.T) {
	conn, peer := connect(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{
		"initialize": func(ctx context.Context, _ json.RawMessage) (any, error) {
			time.Sleep(100 * time.Millisecond)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return map[string]string{"protocolVersion": "2025-11-25"}, nil
		},
	}}, acp.Speaking(acp.MCP))
	ctx, cancel := context.WithCancel(acp.Graceful(context.Background()))
	failed := requested(ctx, conn, "initialize")
	request, _ := peer.next()
	cancel()
	peer.quiet() // no notifications/cancelled
	peer.send(`{"jsonrpc":"2.0","id":` + string(request["id"]) + `,"result":{}}`)
	if err := outcome(t, failed); err != nil {
		t.Fatalf("our initialize: %v", err)
	}

	peer.send(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}`)
	peer.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	if answer, frame := peer.next(); string(answer["result"]) != `{"protocolVersion":"2025-11-25"}` {
		t.Fatalf("their initialize answered %s", frame)
	}
}

// LSP 3.17: `$/cancelRequest` names the request by `id`; "A request that got canceled still
// needs to return from the server and send a response back": -32800 with the id in data.
func TestAnLSPCancelIsAnswered32800(t *testing.T) {
	started, causes := make(chan struct{}, 1), make(chan error, 1)
	_, peer := connect(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{
		"textDocument/hover": blocking(started, causes),
	}}, acp.Speaking(acp.LSP))
	peer.send(`{"jsonrpc":"2.0","id":"h1","method":"textDocument/hover"}`)
	<-started
	peer.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"h1"}}`)
	if cause := <-causes; !errors.Is(cause, acp.ErrCancelledByPeer) {
		t.Fatalf("the handler's ctx ended with %v", cause)
	}
	answer, _ := peer.next()
	if code, data := errorCode(t, answer); code != acp.RequestCancelled || string(data) != `{"requestId":"h1"}` {
		t.Fatalf("%d %s", code, data)
	}
}

// LSP: our cancelled request sends `$/cancelRequest {id}`; a Graceful caller waits for the
// answer the server still sends (here the result: the work finished first).
func TestOurLSPCancelSendsCancelRequestAndAGracefulCallerGetsTheAnswer(t *testing.T) {
	conn, peer := connect(t, acp.MethodHandlers{}, acp.Speaking(acp.LSP))
	ctx, cancel := context.WithCancel(acp.Graceful(context.Background()))
	failed := make(chan error, 1)
	results := make(chan json.RawMessage, 1)
	go func() {
		result, err := conn.Request(ctx, "workspace/symbol", map[string]string{"query": "x"})
		results <- result
		failed <- err
	}()
	request, _ := peer.next()
	cancel()
	if _, frame := peer.next(); frame != `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":`+string(request["id"])+`}}` {
		t.Fatalf("sent %s", frame)
	}
	peer.send(`{"jsonrpc":"2.0","id":` + string(request["id"]) + `,"result":[]}`)
	if err := outcome(t, failed); err != nil || string(<-results) != "[]" {
		t.Fatalf("the caller got %v", err)
	}
}

// LSP: "until the server has responded to the initialize request with an InitializeResult,
// the client must not send any additional requests or notifications to the server": an
// initialize is never cancelled, either way.
func TestLSPNeverCancelsInitialize(t *testing.T) {
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	conn, peer := connect(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{
		"initialize": func(ctx context.Context, _ json.RawMessage) (any, error) {
			started <- struct{}{}
			<-release
			return map[string]bool{"cancelled": ctx.Err() != nil}, nil
		},
	}}, acp.Speaking(acp.LSP))
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	<-started
	peer.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
	time.Sleep(50 * time.Millisecond)
	close(release)
	if answer, frame := peer.next(); string(answer["result"]) != `{"cancelled":false}` {
		t.Fatalf("their initialize answered %s", frame)
	}

	ctx, cancel := context.WithCancel(acp.Graceful(context.Background()))
	failed := requested(ctx, conn, "initialize")
	request, _ := peer.next()
	cancel()
	peer.quiet() // no $/cancelRequest
	peer.send(`{"jsonrpc":"2.0","id":` + string(request["id"]) + `,"result":{"capabilities":{}}}`)
	if err := outcome(t, failed); err != nil {
		t.Fatalf("our initialize: %v", err)
	}
}

// LSP's ServerCancelled (-32802): "The server cancelled the request": a request the receiver
// cancels on its own (its timeout) is answered -32802, not the -32800 of the peer's cancel.
func TestLSPAnswersItsOwnCancellation32802(t *testing.T) {
	_, peer := connect(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{
		"textDocument/completion": func(ctx context.Context, _ json.RawMessage) (any, error) {
			ctx, cancel := context.WithTimeout(ctx, time.Millisecond)
			defer cancel()
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}}, acp.Speaking(acp.LSP))
	peer.send(`{"jsonrpc":"2.0","id":3,"method":"textDocument/completion"}`)
	answer, frame := peer.next()
	if code, data := errorCode(t, answer); code != acp.ServerCancelled || string(data) != `{"requestId":3}` {
		t.Fatalf("answered %s", frame)
	}
}

// "A connection speaks one dialect": the other dialects' cancel notifications are ordinary
// notifications, handed to the handler, and cancel nothing.
func TestAnotherDialectsCancelIsAnOrdinaryNotification(t *testing.T) {
	cancels := map[string][]string{
		"acp": {`$/cancelRequest`, `notifications/cancelled`},
		"lsp": {`$/cancel_request`, `notifications/cancelled`},
		"mcp": {`$/cancel_request`, `$/cancelRequest`},
	}
	for _, dialect := range []acp.Dialect{acp.ACP, acp.LSP, acp.MCP} {
		t.Run(dialect.Name, func(t *testing.T) {
			handed := make(chan string, 2)
			started, causes := make(chan struct{}, 1), make(chan error, 1)
			take := func(method string) acp.NotificationFunc {
				return func(context.Context, json.RawMessage) { handed <- method }
			}
			others := cancels[dialect.Name]
			_, peer := connect(t, acp.MethodHandlers{
				Requests:      map[string]acp.RequestFunc{"slow": blocking(started, causes)},
				Notifications: map[string]acp.NotificationFunc{others[0]: take(others[0]), others[1]: take(others[1])},
			}, acp.Speaking(dialect))
			peer.send(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
			<-started
			for _, method := range others {
				peer.send(`{"jsonrpc":"2.0","method":"` + method + `","params":{"requestId":1,"id":1}}`)
				select {
				case got := <-handed:
					if got != method {
						t.Fatalf("handed %s, expected %s", got, method)
					}
				case <-time.After(patience):
					t.Fatalf("%s was not handed to the handler", method)
				}
			}
			select {
			case cause := <-causes:
				t.Fatalf("the request was cancelled: %v", cause)
			default:
			}
			peer.send(`{"jsonrpc":"2.0","method":"` + dialect.Method + `","params":{"requestId":1,"id":1}}`)
			if cause := <-causes; !errors.Is(cause, acp.ErrCancelledByPeer) {
				t.Fatalf("the handler's ctx ended with %v", cause)
			}
		})
	}
}

// ACP's default is what it was: `$/cancel_request {requestId}` and nothing else, even for a
// ctx cancelled with a reason (ACP has no reason member).
func TestTheACPCancelIsUnchanged(t *testing.T) {
	conn, peer := connect(t, acp.MethodHandlers{})
	if conn.Dialect().Name != "acp" {
		t.Fatalf("the default dialect is %q", conn.Dialect().Name)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	failed := requested(ctx, conn, "session/prompt")
	request, _ := peer.next()
	cancel(acp.CancelReason("stop"))
	if err := outcome(t, failed); !errors.Is(err, acp.CancelReason("stop")) {
		t.Fatalf("the caller got %v", err)
	}
	if _, frame := peer.next(); frame != `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":`+string(request["id"])+`}}` {
		t.Fatalf("sent %s", frame)
	}
}

// Command lsp is our Go runtime speaking LSP's cancellation (acp.Speaking(acp.LSP)) over the
// LSP base protocol's Content-Length framing, as a real peer of vscode-jsonrpc, for
// tests/go/test_interop_go_dialects.py (the scenarios of tests/typescript/interop_lsp.ts).
// Usage:
//
//	lsp server                       an LSP-style server on stdio
//	lsp client <program> [args...]   spawns an LSP-style server and drives it
//
// LSP 3.17: `$/cancelRequest {id}`; "A request that got canceled still needs to return from the
// server and send a response back"; before the InitializeResult "the client must not send any
// additional requests or notifications to the server", so `initialize` is never cancelled.
// The framing is the runtime's: acp.Stdio(acp.ContentLength), acp.SpawnCommand(…, acp.ContentLength).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	acp "acp-protocol-sdk"
)

func main() {
	switch {
	case len(os.Args) == 2 && os.Args[1] == "server":
		serve()
	case len(os.Args) >= 3 && os.Args[1] == "client":
		if err := drive(os.Args[2], os.Args[3:]); err != nil {
			fmt.Fprintln(os.Stderr, "lsp client:", err)
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: lsp server | client <program> [args...]")
		os.Exit(2)
	}
}

// recording is a transport that keeps the methods of the messages it reads, in order (the
// server's "received").
type recording struct {
	acp.Transport
	mu      sync.Mutex
	methods []string
}

func (t *recording) ReadFrame() ([]byte, error) {
	frame, err := t.Transport.ReadFrame()
	var msg struct {
		Method *string `json:"method"`
	}
	if err == nil && json.Unmarshal(frame, &msg) == nil && msg.Method != nil {
		t.mu.Lock()
		t.methods = append(t.methods, *msg.Method)
		t.mu.Unlock()
	}
	return frame, err
}

func (t *recording) received() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string{}, t.methods...)
}

// serve: "initialize" answers after 300 ms with `cancelled`: whether its ctx ended (never, in
// LSP); "slow" logs "slow started", waits until the client cancels it and fails with its ctx
// (-32800); "received" answers the methods of the messages read so far; "shutdown" answers
// null; "exit" ends the process.
func serve() {
	transport := &recording{Transport: acp.Stdio(acp.ContentLength)}
	exit := make(chan struct{})
	var once sync.Once
	handler := acp.MethodHandlers{
		Requests: map[string]acp.RequestFunc{
			"initialize": func(ctx context.Context, _ json.RawMessage) (any, error) {
				time.Sleep(300 * time.Millisecond)
				return map[string]any{
					"capabilities": map[string]any{},
					"serverInfo":   map[string]string{"name": "acp-codegen-go-lsp-server"},
					"cancelled":    ctx.Err() != nil,
				}, nil
			},
			"slow": func(ctx context.Context, _ json.RawMessage) (any, error) {
				_ = acp.ConnectionOf(ctx).Notify("window/logMessage", map[string]any{"type": 3, "message": "slow started"})
				<-ctx.Done()
				return nil, context.Cause(ctx) // "still needs to return": -32800
			},
			"received": func(context.Context, json.RawMessage) (any, error) {
				return transport.received(), nil
			},
			"shutdown": func(context.Context, json.RawMessage) (any, error) {
				return nil, nil
			},
		},
		Notifications: map[string]acp.NotificationFunc{
			"exit": func(context.Context, json.RawMessage) { once.Do(func() { close(exit) }) },
		},
	}
	conn := acp.NewConnection(transport, handler, acp.Speaking(acp.LSP))
	select {
	case <-exit:
		// LSP: "The server should exit with success code 0 if the shutdown request has been
		// received before"; every answer is written (shutdown was answered before exit came).
		// Not Close: it would wait for the read loop, blocked on the client's open stdin.
		os.Exit(0)
	case <-conn.Done():
	}
}

// outcome is a request's outcome in the report's shape.
func outcome(result json.RawMessage, err error) map[string]any {
	var failure *acp.Error
	switch {
	case err == nil:
		return map[string]any{"result": result}
	case errors.As(err, &failure):
		return map[string]any{"error": map[string]any{"code": failure.Code, "message": failure.Message}}
	default:
		return map[string]any{"thrown": err.Error()}
	}
}

// watched is a transport that tells when a frame naming method was written.
type watched struct {
	acp.Transport
	method  string
	written chan struct{}
	once    sync.Once
}

func (w *watched) WriteFrame(frame []byte) error {
	err := w.Transport.WriteFrame(frame)
	var msg struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(frame, &msg) == nil && msg.Method == w.method {
		w.once.Do(func() { close(w.written) })
	}
	return err
}

// drive: initialize cancelled as soon as it is written (no `$/cancelRequest` goes out; the
// answer still comes), "slow" cancelled once the server logs that it started (a Graceful
// caller gets the server's -32800), shutdown, exit; one JSON report.
func drive(program string, args []string) error {
	cmd := exec.Command(program, args...)
	cmd.Stderr = os.Stderr
	process, err := acp.SpawnCommand(context.Background(), cmd, acp.ContentLength)
	if err != nil {
		return err
	}
	transport := &watched{Transport: process, method: "initialize", written: make(chan struct{})}
	started := make(chan struct{})
	var once sync.Once
	handler := acp.MethodHandlers{Notifications: map[string]acp.NotificationFunc{
		"window/logMessage": func(_ context.Context, params json.RawMessage) {
			var message struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(params, &message) == nil && message.Message == "slow started" {
				once.Do(func() { close(started) })
			}
		},
	}}
	conn := acp.NewConnection(transport, handler, acp.Speaking(acp.LSP))

	initCtx, cancelInit := context.WithCancel(acp.Graceful(context.Background()))
	defer cancelInit()
	go func() {
		<-transport.written
		cancelInit()
	}()
	initialized := outcome(conn.Request(initCtx, "initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}}))
	if err := conn.Notify("initialized", map[string]any{}); err != nil {
		return err
	}

	slowCtx, cancelSlow := context.WithCancel(acp.Graceful(context.Background()))
	defer cancelSlow()
	slow := make(chan map[string]any, 1)
	go func() {
		slow <- outcome(conn.Request(slowCtx, "slow", map[string]any{}))
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		return errors.New("slow never started")
	}
	cancelSlow()
	cancelled := <-slow

	shutdown := outcome(conn.Request(context.Background(), "shutdown", nil))
	if err := conn.Notify("exit", nil); err != nil {
		return err
	}
	exitCode := -1
	select {
	case <-process.Exited(): // waited for: its ProcessState is set
		exitCode = cmd.ProcessState.ExitCode()
	case <-time.After(10 * time.Second):
	}
	_ = conn.Close() // ends the program (and its group) if it is still running
	out, err := json.Marshal(map[string]any{
		"initialize": initialized,
		"cancelled":  cancelled,
		"shutdown":   shutdown,
		"exitCode":   exitCode,
	})
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}

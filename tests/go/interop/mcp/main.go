// Command mcp is our Go runtime speaking MCP (acp.Speaking(acp.MCP)) as a real peer of the
// official MCP TypeScript SDK, for tests/go/test_interop_go_dialects.py (the scenarios of
// tests/typescript/interop_mcp.ts). Usage:
//
//	mcp server                       an MCP server on stdio (the SDK's client drives it)
//	mcp client <program> [args...]   spawns an MCP server (the SDK's) and drives it
//
// Both speak MCP 2025-11-25's cancellation: `notifications/cancelled {requestId, reason}`; the
// receiver does "Not send a response for the cancelled request"; the sender "SHOULD ignore any
// response to the request that arrives afterward"; "Both parties SHOULD log cancellation
// reasons".
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
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
			fmt.Fprintln(os.Stderr, "mcp client:", err)
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: mcp server | client <program> [args...]")
		os.Exit(2)
	}
}

// cancellation is one cancel the server's "slow" tool saw: the request's id and the reason.
type cancellation struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    *string         `json:"reason"`
}

// serve is an MCP server with two tools: "slow" (logs "slow started", then waits to be
// cancelled and records the id and reason) and "seen" (the cancellations recorded, as JSON
// text); and ping.
func serve() {
	var mu sync.Mutex
	seen := []cancellation{}
	tool := func(ctx context.Context, params json.RawMessage) (any, error) {
		var call struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(params, &call)
		if call.Name == "seen" {
			mu.Lock()
			text, _ := json.Marshal(seen)
			mu.Unlock()
			return map[string]any{"content": []any{map[string]string{"type": "text", "text": string(text)}}}, nil
		}
		_ = acp.ConnectionOf(ctx).Notify("notifications/message", map[string]string{"level": "info", "data": "slow started"})
		<-ctx.Done()
		record := cancellation{RequestID: acp.RequestIDOf(ctx)}
		var reason acp.CancelReason
		if errors.As(context.Cause(ctx), &reason) {
			text := string(reason)
			record.Reason = &text
		}
		mu.Lock()
		seen = append(seen, record)
		mu.Unlock()
		// Not answered: the peer cancelled it ("Not send a response for the cancelled request").
		return nil, context.Cause(ctx)
	}
	handler := acp.MethodHandlers{Requests: map[string]acp.RequestFunc{
		"initialize": func(_ context.Context, params json.RawMessage) (any, error) {
			var asked struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(params, &asked)
			return map[string]any{
				"protocolVersion": asked.ProtocolVersion,
				"capabilities":    map[string]any{"tools": map[string]any{}, "logging": map[string]any{}},
				"serverInfo":      map[string]string{"name": "acp-codegen-go-mcp-server", "version": "1.0.0"},
			}, nil
		},
		"tools/call": tool,
		"ping": func(context.Context, json.RawMessage) (any, error) {
			return map[string]any{}, nil
		},
	}}
	conn := acp.NewConnection(acp.Stdio(), handler, acp.Speaking(acp.MCP))
	<-conn.Done()
}

// responses is a transport that counts the responses read, by id: an answer to a cancelled
// request would show here (the connection drops it silently).
type responses struct {
	acp.Transport
	mu    sync.Mutex
	byID  map[string]int
	other []string
}

func (r *responses) ReadFrame() ([]byte, error) {
	frame, err := r.Transport.ReadFrame()
	if err == nil {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
		}
		if json.Unmarshal(frame, &msg) == nil && msg.Method == nil && msg.ID != nil {
			r.mu.Lock()
			r.byID[string(msg.ID)]++
			r.mu.Unlock()
		}
	}
	return frame, err
}

func (r *responses) count(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byID[id]
}

// drive is an MCP client: initialize, a "slow" tool call cancelled (with a reason) once the
// server logs that it started, a wait for a late answer that must not come, the "seen" tool, a
// ping; one JSON report.
func drive(program string, args []string) error {
	ctx := context.Background()
	process, err := acp.Spawn(ctx, program, args...)
	if err != nil {
		return err
	}
	transport := &responses{Transport: process, byID: map[string]int{}}
	started := make(chan struct{})
	var once sync.Once
	handler := acp.MethodHandlers{Notifications: map[string]acp.NotificationFunc{
		"notifications/message": func(_ context.Context, params json.RawMessage) {
			var message struct {
				Data any `json:"data"`
			}
			if json.Unmarshal(params, &message) == nil && message.Data == "slow started" {
				once.Do(func() { close(started) })
			}
		},
	}}
	conn := acp.NewConnection(transport, handler, acp.Speaking(acp.MCP))
	defer conn.Close()
	initialize, err := conn.Request(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]string{"name": "acp-codegen-go-mcp-client", "version": "1.0.0"},
	})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if err := conn.Notify("notifications/initialized", map[string]any{}); err != nil {
		return err
	}

	// Graceful: in MCP no answer comes, so the caller stops waiting at once all the same.
	slowCtx, cancel := context.WithCancelCause(acp.Graceful(ctx))
	defer cancel(nil)
	slow := make(chan error, 1)
	go func() {
		_, err := conn.Request(slowCtx, "tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}})
		slow <- err
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		return errors.New("the slow tool never started")
	}
	cancel(acp.CancelReason("the user pressed stop"))
	cancelled := map[string]any{}
	select {
	case err := <-slow:
		var reason acp.CancelReason
		cancelled["error"] = fmt.Sprint(err)
		cancelled["reason"] = errors.As(err, &reason) && reason == "the user pressed stop"
	case <-time.After(time.Second): // it must not wait for an answer
		cancelled["error"] = "still waiting after a second"
	}
	time.Sleep(300 * time.Millisecond) // room for an answer that must not come

	seenResult, err := conn.Request(ctx, "tools/call", map[string]any{"name": "seen", "arguments": map[string]any{}})
	if err != nil {
		return fmt.Errorf("seen: %w", err)
	}
	var seenTool struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(seenResult, &seenTool); err != nil || len(seenTool.Content) != 1 {
		return fmt.Errorf("seen answered %s", seenResult)
	}
	ping, err := conn.Request(ctx, "ping", map[string]any{})
	if err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	var initialized struct {
		ProtocolVersion string          `json:"protocolVersion"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
	}
	_ = json.Unmarshal(initialize, &initialized)
	report := map[string]any{
		"protocolVersion": initialized.ProtocolVersion,
		"serverInfo":      initialized.ServerInfo,
		"cancelled":       cancelled,
		"seen":            json.RawMessage(seenTool.Content[0].Text),
		"ping":            ping,
		// The SDK must send no answer to the cancelled request (id 2: initialize is 1).
		"answersToTheCancelled": transport.count("2"),
	}
	out, err := json.Marshal(report)
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}

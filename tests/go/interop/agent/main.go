// Command agent is an ACP agent on the generated Go package, serving on stdio, for the interop
// tests (tests/go/test_interop_*.py); it behaves like tests/interop/our_agent.py. What a prompt
// does depends on its text:
//
//   - "stream": three agent_message_chunk updates ("one ", "two ", "three"), then end_turn;
//   - "slow": one chunk ("working"), then waits for its ctx: cancelled by $/cancel_request it is
//     answered -32800, by session/cancel {"stopReason":"cancelled"} (both by the generated layer);
//   - "nested": asks the client for fs/read_text_file with the prompt's ctx and waits for it:
//     cancelling the prompt cascades a $/cancel_request to that nested request;
//   - "info": three session_info_update: a title with _meta, a cleared title, a cleared _meta.
//
// With --listen it serves the same agent over WebSocket instead (its URL the first line of its
// output) until its stdin ends. With $ACP_INTEROP_EVENTS set it appends what it saw there as JSON lines: each cancel that
// came ({"event":"cancel_request","requestId":…}, {"event":"session_cancel"}) and each prompt
// cancelled ({"event":"prompt_cancelled","by":"request"|"session"}).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	"acp-protocol-sdk/wire"
)

const name = "acp-codegen-go-interop-agent"

type agent struct {
	v1.UnimplementedAgent
	sessions atomic.Int64
	events   *os.File
	mu       sync.Mutex
}

func (a *agent) Initialize(_ context.Context, params v1.InitializeRequest) (v1.InitializeResponse, error) {
	return v1.InitializeResponse{
		ProtocolVersion: params.ProtocolVersion,
		AgentInfo:       wire.Some(v1.Implementation{Name: name, Version: "0"}),
	}, nil
}

func (a *agent) SessionNew(context.Context, v1.NewSessionRequest) (v1.NewSessionResponse, error) {
	return v1.NewSessionResponse{SessionID: v1.SessionID(fmt.Sprintf("go-%d", a.sessions.Add(1)))}, nil
}

func (a *agent) SessionPrompt(ctx context.Context, params v1.PromptRequest) (v1.PromptResponse, error) {
	var text strings.Builder
	for _, block := range params.Prompt {
		if block, ok := block.(v1.ContentBlockText); ok {
			text.WriteString(block.Text)
		}
	}
	client := v1.ClientOf(ctx)
	send := func(update v1.SessionUpdate) error {
		return client.SessionUpdate(v1.SessionNotification{SessionID: params.SessionID, Update: update})
	}
	chunk := func(text string) v1.SessionUpdate {
		return v1.SessionUpdateAgentMessageChunk{Content: v1.ContentBlockText{Text: text}}
	}
	switch text.String() {
	case "stream":
		for _, part := range []string{"one ", "two ", "three"} {
			if err := send(chunk(part)); err != nil {
				return v1.PromptResponse{}, err
			}
		}
	case "slow":
		if err := send(chunk("working")); err != nil {
			return v1.PromptResponse{}, err
		}
		<-ctx.Done()
		a.cancelled(ctx)
		return v1.PromptResponse{}, ctx.Err()
	case "nested":
		read := v1.ReadTextFileRequest{SessionID: params.SessionID, Path: "/interop/held.txt"}
		if _, err := client.FsReadTextFile(ctx, read); err != nil {
			a.cancelled(ctx)
			return v1.PromptResponse{}, err
		}
	case "info":
		meta := map[string]json.RawMessage{"trace": json.RawMessage(`{"step":1,"tags":["a","b"]}`)}
		updates := []v1.SessionUpdate{
			v1.SessionUpdateSessionInfoUpdate{Title: wire.Some("Interop title"), Meta: wire.Some(meta)},
			v1.SessionUpdateSessionInfoUpdate{Title: wire.Null[string]()},
			v1.SessionUpdateSessionInfoUpdate{UpdatedAt: wire.Some("2026-11-21T12:00:00Z"), Meta: wire.Null[map[string]json.RawMessage]()},
		}
		for _, update := range updates {
			if err := send(update); err != nil {
				return v1.PromptResponse{}, err
			}
		}
	}
	return v1.PromptResponse{StopReason: v1.StopReasonEndTurn}, nil
}

// cancelled records why the prompt's ctx ended.
func (a *agent) cancelled(ctx context.Context) {
	by := "other"
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, acp.ErrCancelledByPeer):
		by = "request"
	case errors.Is(cause, acp.ErrTurnCancelled):
		by = "session"
	case cause == nil:
		return
	}
	a.event(map[string]any{"event": "prompt_cancelled", "by": by})
}

func (a *agent) event(event map[string]any) {
	if a.events == nil {
		return
	}
	line, _ := json.Marshal(event)
	a.mu.Lock()
	defer a.mu.Unlock()
	_, _ = a.events.Write(append(line, '\n'))
}

func main() {
	a := &agent{}
	if path := os.Getenv("ACP_INTEROP_EVENTS"); path != "" {
		events, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "agent:", err)
			os.Exit(1)
		}
		defer events.Close()
		a.events = events
	}
	if len(os.Args) > 1 && os.Args[1] == "--listen" {
		listen(a)
		return
	}
	conn, _ := v1.ConnectAgent(observed{acp.Stdio(), a}, a)
	<-conn.Done()
}

// listen serves the agent over WebSocket (v1.ServeRemoteAgent) on a free loopback port, prints
// its URL as the first line (http://…/acp, as our TypeScript agent's --listen does) and stops
// at the end of its stdin.
func listen(a *agent) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	fmt.Printf("http://%s/acp\n", listener.Addr())
	if err := v1.ServeRemoteAgent(ctx, listener, func() v1.Agent { return a }, acp.ServeOptions{}); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
}

// observed logs the cancels among the frames the client sends.
type observed struct {
	acp.Transport
	agent *agent
}

func (o observed) ReadFrame() ([]byte, error) {
	frame, err := o.Transport.ReadFrame()
	if err != nil || o.agent.events == nil {
		return frame, err
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(frame, &msg) == nil {
		switch msg.Method {
		case acp.CancelRequestMethod:
			o.agent.event(map[string]any{"event": "cancel_request", "requestId": msg.Params.RequestID})
		case v1.MethodSessionCancel:
			o.agent.event(map[string]any{"event": "session_cancel"})
		}
	}
	return frame, err
}

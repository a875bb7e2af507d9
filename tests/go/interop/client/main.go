// Command client is an ACP client on the generated Go package, for the interop tests
// (tests/go/test_interop_*.py): `client <scenario> <agent program> [args...]` spawns the agent
// (acp.Spawn: its own process group, ended with the connection), runs one scenario against it
// and prints one JSON line with what it saw, the report of tests/interop/node/ts_client.mjs.
// The agent is expected to behave like tests/interop/our_agent.py (prompt text picks the work).
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
	v1 "acp-protocol-sdk/v1"
	"acp-protocol-sdk/wire"
)

// seen is what the client saw, in the report's shape.
type seen struct {
	mu             sync.Mutex
	changed        chan struct{}
	Updates        []json.RawMessage `json:"updates"`
	CancelRequests []json.RawMessage `json:"cancelRequests"`
	FsRequests     []json.RawMessage `json:"fsRequests"`
	FsAborted      []json.RawMessage `json:"fsAborted"`
	Problems       []string          `json:"problems"`
	info           acp.SessionInfo   // the session's info, as its session_info_update set it
}

func (s *seen) record(change func()) {
	s.mu.Lock()
	change()
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// until waits (up to 10 s) for what the client saw to meet check.
func (s *seen) until(check func() bool) error {
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		met := check()
		s.mu.Unlock()
		if met {
			return nil
		}
		select {
		case <-s.changed:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			return errors.New("timed out waiting for the agent")
		}
	}
}

type client struct {
	v1.UnimplementedClient
	seen *seen
}

func (c client) SessionUpdate(_ context.Context, params v1.SessionNotification) {
	update, err := json.Marshal(params.Update)
	if err != nil {
		update, _ = json.Marshal(err.Error())
	}
	c.seen.record(func() { c.seen.Updates = append(c.seen.Updates, update) })
	if _, ok := params.Update.(v1.SessionUpdateSessionInfoUpdate); ok {
		policy := acp.MetaPolicyOf(v1.Behaviour, "SessionInfoUpdate")
		c.seen.record(func() {
			if info, err := acp.ApplySessionInfoUpdate(c.seen.info, params.Update, policy); err == nil {
				c.seen.info = info
			}
		})
	}
}

// FsReadTextFile holds the read until the agent cancels it (answered -32800 by the runtime).
func (c client) FsReadTextFile(ctx context.Context, _ v1.ReadTextFileRequest) (v1.ReadTextFileResponse, error) {
	id := acp.RequestIDOf(ctx)
	c.seen.record(func() { c.seen.FsRequests = append(c.seen.FsRequests, id) })
	<-ctx.Done()
	if errors.Is(context.Cause(ctx), acp.ErrCancelledByPeer) {
		c.seen.record(func() { c.seen.FsAborted = append(c.seen.FsAborted, id) })
	}
	return v1.ReadTextFileResponse{}, ctx.Err()
}

// observed records, from the frames the agent sends, each $/cancel_request and any answer to a
// notification (an id of null: there must be none).
type observed struct {
	acp.Transport
	seen *seen
}

func (o observed) ReadFrame() ([]byte, error) {
	frame, err := o.Transport.ReadFrame()
	if err != nil {
		return frame, err
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(frame, &msg) == nil {
		switch {
		case msg.Method == acp.CancelRequestMethod:
			o.seen.record(func() { o.seen.CancelRequests = append(o.seen.CancelRequests, msg.Params.RequestID) })
		case string(msg.ID) == "null":
			o.seen.record(func() { o.seen.Problems = append(o.seen.Problems, "an answer to a notification: "+string(frame)) })
		}
	}
	return frame, err
}

// outcome is a call's result or error, as the report writes it.
func outcome(result any, err error) map[string]any {
	var failure *acp.Error
	switch {
	case err == nil:
		return map[string]any{"result": result}
	case errors.As(err, &failure):
		data := json.RawMessage("null")
		if failure.Data != nil {
			data = failure.Data
		}
		return map[string]any{"error": map[string]any{"code": failure.Code, "message": failure.Message, "data": data}}
	default:
		return map[string]any{"error": map[string]any{"code": nil, "message": err.Error(), "data": nil}}
	}
}

func prompt(session v1.SessionID, text string) v1.PromptRequest {
	return v1.PromptRequest{SessionID: session, Prompt: []v1.ContentBlock{v1.ContentBlockText{Text: text}}}
}

type scenario func(agent v1.AgentPeer, session v1.SessionID, s *seen) (map[string]any, error)

var scenarios = map[string]scenario{
	"prompt": func(agent v1.AgentPeer, session v1.SessionID, s *seen) (map[string]any, error) {
		response, err := agent.SessionPrompt(context.Background(), prompt(session, "stream"))
		return map[string]any{"response": response}, err
	},
	// cancel_request cancels the prompt's ctx (Graceful: it waits for the agent's -32800).
	"cancel_request": func(agent v1.AgentPeer, session v1.SessionID, s *seen) (map[string]any, error) {
		ctx, cancel := context.WithCancel(acp.Graceful(context.Background()))
		defer cancel()
		answer := make(chan map[string]any, 1)
		go func() { answer <- outcome(agent.SessionPrompt(ctx, prompt(session, "slow"))) }()
		if err := s.until(func() bool { return len(s.Updates) > 0 }); err != nil {
			return nil, err
		}
		cancel()
		return map[string]any{"prompt": <-answer}, nil
	},
	"session_cancel": func(agent v1.AgentPeer, session v1.SessionID, s *seen) (map[string]any, error) {
		answer := make(chan map[string]any, 1)
		go func() { answer <- outcome(agent.SessionPrompt(context.Background(), prompt(session, "slow"))) }()
		if err := s.until(func() bool { return len(s.Updates) > 0 }); err != nil {
			return nil, err
		}
		if err := agent.SessionCancel(v1.CancelNotification{SessionID: session}); err != nil {
			return nil, err
		}
		return map[string]any{"prompt": <-answer}, nil
	},
	"cascade": func(agent v1.AgentPeer, session v1.SessionID, s *seen) (map[string]any, error) {
		ctx, cancel := context.WithCancel(acp.Graceful(context.Background()))
		defer cancel()
		answer := make(chan map[string]any, 1)
		go func() { answer <- outcome(agent.SessionPrompt(ctx, prompt(session, "nested"))) }()
		if err := s.until(func() bool { return len(s.FsRequests) > 0 }); err != nil {
			return nil, err
		}
		cancel()
		result := <-answer
		err := s.until(func() bool { return len(s.FsAborted) > 0 })
		return map[string]any{"prompt": result}, err
	},
	// stale_cancels cancels the finished first prompt (id 3: initialize 1, session/new 2) and an
	// id never sent; the agent ignores both and serves on.
	"stale_cancels": func(agent v1.AgentPeer, session v1.SessionID, s *seen) (map[string]any, error) {
		first, err := agent.SessionPrompt(context.Background(), prompt(session, "stream"))
		if err != nil {
			return nil, err
		}
		for _, id := range []int{3, 999} {
			if err := agent.Conn.Notify(acp.CancelRequestMethod, map[string]int{"requestId": id}); err != nil {
				return nil, err
			}
		}
		second, err := agent.SessionPrompt(context.Background(), prompt(session, "stream"))
		return map[string]any{"first": first, "second": second}, err
	},
	"session_info": func(agent v1.AgentPeer, session v1.SessionID, s *seen) (map[string]any, error) {
		response, err := agent.SessionPrompt(context.Background(), prompt(session, "info"))
		return map[string]any{"response": response}, err
	},
}

func run(scenarioName, program string, args []string) (map[string]any, error) {
	run, ok := scenarios[scenarioName]
	if !ok {
		return nil, fmt.Errorf("unknown scenario %q", scenarioName)
	}
	child, err := acp.Spawn(context.Background(), program, args...)
	if err != nil {
		return nil, err
	}
	s := &seen{changed: make(chan struct{}, 1), Updates: []json.RawMessage{}, CancelRequests: []json.RawMessage{},
		FsRequests: []json.RawMessage{}, FsAborted: []json.RawMessage{}, Problems: []string{}}
	conn, agent := v1.ConnectClient(observed{child, s}, client{seen: s})
	defer conn.Close()
	ctx := context.Background()
	capabilities := v1.ClientCapabilities{Fs: wire.Some(v1.FileSystemCapabilities{ReadTextFile: wire.Some(true)})}
	initialized, err := agent.Initialize(ctx, v1.InitializeRequest{ProtocolVersion: v1.EditionVersion, ClientCapabilities: wire.Some(capabilities)})
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	cwd, _ := os.Getwd()
	session, err := agent.SessionNew(ctx, v1.NewSessionRequest{Cwd: cwd, MCPServers: []v1.MCPServer{}})
	if err != nil {
		return nil, fmt.Errorf("session/new: %w", err)
	}
	report, err := run(agent, session.SessionID, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", scenarioName, err)
	}
	report["initialize"], report["sessionId"] = initialized, session.SessionID
	s.mu.Lock()
	defer s.mu.Unlock()
	report["updates"], report["cancelRequests"], report["fsRequests"] = s.Updates, s.CancelRequests, s.FsRequests
	report["fsAborted"], report["problems"] = s.FsAborted, s.Problems
	report["sessionInfo"] = map[string]any{"title": s.info.Title, "updatedAt": s.info.UpdatedAt, "_meta": s.info.Meta}
	return report, nil
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: client <scenario> <agent program> [args...]")
		os.Exit(2)
	}
	report, err := run(os.Args[1], os.Args[2], os.Args[3:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
	line, err := json.Marshal(report)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
	fmt.Println(string(line))
}

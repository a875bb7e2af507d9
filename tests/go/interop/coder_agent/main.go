// Command coder_agent is an ACP agent on coder/acp-go-sdk (the community Go SDK, pinned in
// tests/go/go.mod), serving on stdio, for the interop tests (tests/go/test_interop_coder.py).
// Like tests/interop/our_agent.py, a prompt's text picks the work: "stream" sends three chunks
// ("one ", "two ", "three") and ends the turn; "slow" sends one chunk ("working") and waits:
// session/cancel ends it with stopReason cancelled, $/cancel_request with the SDK's -32800
// (the turn handling of the SDK's own example agent, go/example/agent).
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	coder "github.com/coder/acp-go-sdk"
)

type agent struct {
	conn     *coder.AgentSideConnection
	sessions atomic.Int64
	mu       sync.Mutex
	turns    map[coder.SessionId]context.CancelFunc // the running prompt of each session
}

func (a *agent) Initialize(context.Context, coder.InitializeRequest) (coder.InitializeResponse, error) {
	return coder.InitializeResponse{
		ProtocolVersion: coder.ProtocolVersionNumber,
		AgentInfo:       &coder.Implementation{Name: "coder-acp-go-sdk-agent", Version: "0"},
	}, nil
}

func (a *agent) NewSession(context.Context, coder.NewSessionRequest) (coder.NewSessionResponse, error) {
	return coder.NewSessionResponse{SessionId: coder.SessionId(fmt.Sprintf("coder-%d", a.sessions.Add(1)))}, nil
}

func (a *agent) Prompt(ctx context.Context, p coder.PromptRequest) (coder.PromptResponse, error) {
	var text strings.Builder
	for _, block := range p.Prompt {
		if block.Text != nil {
			text.WriteString(block.Text.Text)
		}
	}
	turn, cancel := context.WithCancel(context.Background()) // ended by Cancel only
	defer cancel()
	a.mu.Lock()
	a.turns[p.SessionId] = cancel
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.turns, p.SessionId)
		a.mu.Unlock()
	}()
	send := func(text string) error {
		return a.conn.SessionUpdate(ctx, coder.SessionNotification{SessionId: p.SessionId, Update: coder.UpdateAgentMessageText(text)})
	}
	switch text.String() {
	case "stream":
		for _, part := range []string{"one ", "two ", "three"} {
			if err := send(part); err != nil {
				return coder.PromptResponse{}, err
			}
		}
	case "slow":
		if err := send("working"); err != nil {
			return coder.PromptResponse{}, err
		}
		// The SDK ends ctx for session/cancel just before it calls Cancel (which ends turn), and
		// for $/cancel_request without calling it: a moment tells the two apart.
		select {
		case <-turn.Done():
		case <-ctx.Done():
			select {
			case <-turn.Done():
			case <-time.After(200 * time.Millisecond):
				return coder.PromptResponse{}, ctx.Err() // $/cancel_request: the SDK answers -32800
			}
		}
		return coder.PromptResponse{StopReason: coder.StopReasonCancelled}, nil
	}
	return coder.PromptResponse{StopReason: coder.StopReasonEndTurn}, nil
}

func (a *agent) Cancel(_ context.Context, p coder.CancelNotification) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if cancel := a.turns[p.SessionId]; cancel != nil {
		cancel()
	}
	return nil
}

func (a *agent) Authenticate(context.Context, coder.AuthenticateRequest) (coder.AuthenticateResponse, error) {
	return coder.AuthenticateResponse{}, nil
}

func (a *agent) CloseSession(context.Context, coder.CloseSessionRequest) (coder.CloseSessionResponse, error) {
	return coder.CloseSessionResponse{}, nil
}

func (a *agent) ListSessions(context.Context, coder.ListSessionsRequest) (coder.ListSessionsResponse, error) {
	return coder.ListSessionsResponse{}, nil
}

func (a *agent) ResumeSession(context.Context, coder.ResumeSessionRequest) (coder.ResumeSessionResponse, error) {
	return coder.ResumeSessionResponse{}, nil
}

func (a *agent) SetSessionConfigOption(context.Context, coder.SetSessionConfigOptionRequest) (coder.SetSessionConfigOptionResponse, error) {
	return coder.SetSessionConfigOptionResponse{}, nil
}

func (a *agent) SetSessionMode(context.Context, coder.SetSessionModeRequest) (coder.SetSessionModeResponse, error) {
	return coder.SetSessionModeResponse{}, nil
}

func main() {
	a := &agent{turns: map[coder.SessionId]context.CancelFunc{}}
	a.conn = coder.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	<-a.conn.Done()
}

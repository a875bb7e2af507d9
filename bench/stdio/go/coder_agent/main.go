// Command coder_agent is the two-process bench agent on coder/acp-go-sdk (pinned in go.mod): the
// work of bench/stdio/ts/agent.mjs, chosen by the prompt's text (bench/stdio/schedule.py).
package main

import (
	"context"
	"os"
	"strings"

	coder "github.com/coder/acp-go-sdk"

	"acp-codegen-bench/schedule"
)

type agent struct{ conn *coder.AgentSideConnection }

func (a *agent) Initialize(context.Context, coder.InitializeRequest) (coder.InitializeResponse, error) {
	return coder.InitializeResponse{ProtocolVersion: coder.ProtocolVersionNumber}, nil
}

func (a *agent) NewSession(context.Context, coder.NewSessionRequest) (coder.NewSessionResponse, error) {
	return coder.NewSessionResponse{SessionId: "bench"}, nil
}

func (a *agent) Prompt(ctx context.Context, p coder.PromptRequest) (coder.PromptResponse, error) {
	var text strings.Builder
	for _, block := range p.Prompt {
		if block.Text != nil {
			text.WriteString(block.Text.Text)
		}
	}
	kind, n, k := schedule.Work(text.String())
	var err error
	switch kind {
	case "flood":
		update := coder.SessionNotification{SessionId: p.SessionId, Update: coder.UpdateAgentMessageText(schedule.Chunk)}
		for i := 0; i < n && err == nil; i++ {
			err = a.conn.SessionUpdate(ctx, update)
		}
	case "reads":
		read := coder.ReadTextFileRequest{SessionId: p.SessionId, Path: schedule.ReadPath}
		err = schedule.Reads(n, k, func() error {
			_, err := a.conn.ReadTextFile(ctx, read)
			return err
		})
	}
	if err != nil {
		return coder.PromptResponse{}, err
	}
	return coder.PromptResponse{StopReason: coder.StopReasonEndTurn}, nil
}

func (a *agent) Cancel(context.Context, coder.CancelNotification) error { return nil }

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
	a := &agent{}
	a.conn = coder.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	<-a.conn.Done()
}

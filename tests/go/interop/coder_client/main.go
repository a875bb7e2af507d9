// Command coder_client is an ACP client on coder/acp-go-sdk (the community Go SDK, pinned in
// tests/go/go.mod), for the interop tests (tests/go/test_interop_coder.py):
// `coder_client <scenario> <agent program> [args...]` starts the agent, runs one scenario and
// prints one JSON line: the chunks it received and the prompt's outcome. Scenarios: "prompt"
// ("stream"), "cancel_request" ("slow", its ctx cancelled after the first chunk: the SDK sends
// $/cancel_request) and "session_cancel" ("slow", then session/cancel).
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

	coder "github.com/coder/acp-go-sdk"
)

type client struct {
	mu     sync.Mutex
	chunks []string
}

func (c *client) SessionUpdate(_ context.Context, n coder.SessionNotification) error {
	if chunk := n.Update.AgentMessageChunk; chunk != nil && chunk.Content.Text != nil {
		c.mu.Lock()
		c.chunks = append(c.chunks, chunk.Content.Text.Text)
		c.mu.Unlock()
	}
	return nil
}

// firstChunk waits (up to 10 s) for a chunk.
func (c *client) firstChunk() error {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		c.mu.Lock()
		n := len(c.chunks)
		c.mu.Unlock()
		if n > 0 {
			return nil
		}
	}
	return errors.New("no chunk came")
}

func (c *client) ReadTextFile(context.Context, coder.ReadTextFileRequest) (coder.ReadTextFileResponse, error) {
	return coder.ReadTextFileResponse{}, coder.NewMethodNotFound("fs/read_text_file")
}

func (c *client) WriteTextFile(context.Context, coder.WriteTextFileRequest) (coder.WriteTextFileResponse, error) {
	return coder.WriteTextFileResponse{}, coder.NewMethodNotFound("fs/write_text_file")
}

func (c *client) RequestPermission(context.Context, coder.RequestPermissionRequest) (coder.RequestPermissionResponse, error) {
	return coder.RequestPermissionResponse{Outcome: coder.RequestPermissionOutcome{Cancelled: &coder.RequestPermissionOutcomeCancelled{}}}, nil
}

func (c *client) CreateTerminal(context.Context, coder.CreateTerminalRequest) (coder.CreateTerminalResponse, error) {
	return coder.CreateTerminalResponse{}, coder.NewMethodNotFound("terminal/create")
}

func (c *client) KillTerminal(context.Context, coder.KillTerminalRequest) (coder.KillTerminalResponse, error) {
	return coder.KillTerminalResponse{}, coder.NewMethodNotFound("terminal/kill")
}

func (c *client) TerminalOutput(context.Context, coder.TerminalOutputRequest) (coder.TerminalOutputResponse, error) {
	return coder.TerminalOutputResponse{}, coder.NewMethodNotFound("terminal/output")
}

func (c *client) ReleaseTerminal(context.Context, coder.ReleaseTerminalRequest) (coder.ReleaseTerminalResponse, error) {
	return coder.ReleaseTerminalResponse{}, coder.NewMethodNotFound("terminal/release")
}

func (c *client) WaitForTerminalExit(context.Context, coder.WaitForTerminalExitRequest) (coder.WaitForTerminalExitResponse, error) {
	return coder.WaitForTerminalExitResponse{}, coder.NewMethodNotFound("terminal/wait_for_exit")
}

func outcome(response coder.PromptResponse, err error) map[string]any {
	var failure *coder.RequestError
	switch {
	case err == nil:
		return map[string]any{"result": response}
	case errors.As(err, &failure):
		return map[string]any{"error": map[string]any{"code": failure.Code, "message": failure.Message}}
	default:
		return map[string]any{"error": map[string]any{"code": nil, "message": err.Error()}}
	}
}

func prompt(session coder.SessionId, text string) coder.PromptRequest {
	return coder.PromptRequest{SessionId: session, Prompt: []coder.ContentBlock{coder.TextBlock(text)}}
}

func run(scenario, program string, args []string) (map[string]any, error) {
	cmd := exec.Command(program, args...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		_ = stdin.Close() // the agent ends on EOF
		_ = cmd.Wait()
	}()
	c := &client{}
	conn := coder.NewClientSideConnection(c, stdin, stdout)
	ctx := context.Background()
	initialized, err := conn.Initialize(ctx, coder.InitializeRequest{ProtocolVersion: coder.ProtocolVersionNumber})
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	session, err := conn.NewSession(ctx, coder.NewSessionRequest{Cwd: "/", McpServers: []coder.McpServer{}})
	if err != nil {
		return nil, fmt.Errorf("session/new: %w", err)
	}
	report := map[string]any{"initialize": initialized}
	switch scenario {
	case "prompt":
		report["prompt"] = outcome(conn.Prompt(ctx, prompt(session.SessionId, "stream")))
	case "cancel_request", "session_cancel":
		promptCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		answer := make(chan map[string]any, 1)
		go func() { answer <- outcome(conn.Prompt(promptCtx, prompt(session.SessionId, "slow"))) }()
		if err := c.firstChunk(); err != nil {
			return nil, err
		}
		if scenario == "cancel_request" {
			cancel()
		} else if err := conn.Cancel(ctx, coder.CancelNotification{SessionId: session.SessionId}); err != nil {
			return nil, err
		}
		report["prompt"] = <-answer
		// The SDK sends $/cancel_request from a goroutine of its own, after it has returned:
		// a moment for it to go out before the agent's stdin closes.
		time.Sleep(200 * time.Millisecond)
	default:
		return nil, fmt.Errorf("unknown scenario %q", scenario)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	report["chunks"] = append([]string{}, c.chunks...)
	return report, nil
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: coder_client <scenario> <agent program> [args...]")
		os.Exit(2)
	}
	report, err := run(os.Args[1], os.Args[2], os.Args[3:])
	if err == nil {
		var line []byte
		if line, err = json.Marshal(report); err == nil {
			fmt.Println(string(line))
			return
		}
	}
	fmt.Fprintln(os.Stderr, "coder_client:", err)
	os.Exit(1)
}

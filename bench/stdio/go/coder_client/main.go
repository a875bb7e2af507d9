// Command coder_client is the two-process bench client on coder/acp-go-sdk (pinned in go.mod): it
// spawns the agent command after `--`, runs the phases of bench/stdio/schedule.py and prints the
// JSON line.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"

	coder "github.com/coder/acp-go-sdk"

	"acp-codegen-bench/schedule"
)

type client struct{ updates atomic.Int64 }

func (c *client) SessionUpdate(context.Context, coder.SessionNotification) error {
	c.updates.Add(1)
	return nil
}

func (c *client) ReadTextFile(context.Context, coder.ReadTextFileRequest) (coder.ReadTextFileResponse, error) {
	return coder.ReadTextFileResponse{Content: schedule.FileText}, nil
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

func run() error {
	n, command := schedule.Arguments()
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		_ = stdin.Close() // the agent ends on EOF
		_ = cmd.Wait()
	}()
	c := &client{}
	conn := coder.NewClientSideConnection(c, stdin, stdout)
	ctx := context.Background()
	capabilities := coder.ClientCapabilities{Fs: coder.FileSystemCapabilities{ReadTextFile: true}}
	if _, err := conn.Initialize(ctx, coder.InitializeRequest{ProtocolVersion: coder.ProtocolVersionNumber, ClientCapabilities: capabilities}); err != nil {
		return err
	}
	session, err := conn.NewSession(ctx, coder.NewSessionRequest{Cwd: "/", McpServers: []coder.McpServer{}})
	if err != nil {
		return err
	}
	prompt := func(text string) error {
		_, err := conn.Prompt(ctx, coder.PromptRequest{SessionId: session.SessionId, Prompt: []coder.ContentBlock{coder.TextBlock(text)}})
		return err
	}
	return schedule.Measure("coder-go", n, prompt, c.updates.Load)
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "coder_client:", err)
		os.Exit(1)
	}
}

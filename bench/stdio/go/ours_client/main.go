// Command ours_client is the two-process bench client on our generated Go package: it spawns the
// agent command after `--` (or connects to the ws:// URL there: bench/remote.py), runs the phases
// of bench/stdio/schedule.py and prints the JSON line.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	"acp-protocol-sdk/wire"

	"acp-codegen-bench/schedule"
)

type client struct {
	v1.UnimplementedClient
	updates *atomic.Int64
}

func (c client) SessionUpdate(context.Context, v1.SessionNotification) { c.updates.Add(1) }

func (client) FsReadTextFile(context.Context, v1.ReadTextFileRequest) (v1.ReadTextFileResponse, error) {
	return v1.ReadTextFileResponse{Content: schedule.FileText}, nil
}

func run() error {
	n, command := schedule.Arguments()
	ctx := context.Background()
	var updates atomic.Int64
	var agent v1.AgentPeer
	if strings.HasPrefix(command[0], "ws://") { // a remote agent (bench/remote.py)
		remote, err := v1.ConnectRemoteAgent(ctx, command[0], client{updates: &updates}, acp.RemoteOptions{})
		if err != nil {
			return err
		}
		defer remote.Close()
		agent = remote.Agent()
	} else {
		child, err := acp.Spawn(ctx, command[0], command[1:]...)
		if err != nil {
			return err
		}
		var conn *acp.Connection
		conn, agent = v1.ConnectClient(child, client{updates: &updates})
		defer conn.Close()
	}
	capabilities := v1.ClientCapabilities{Fs: wire.Some(v1.FileSystemCapabilities{ReadTextFile: wire.Some(true)})}
	if _, err := agent.Initialize(ctx, v1.InitializeRequest{ProtocolVersion: v1.EditionVersion, ClientCapabilities: wire.Some(capabilities)}); err != nil {
		return err
	}
	session, err := agent.SessionNew(ctx, v1.NewSessionRequest{Cwd: "/", MCPServers: []v1.MCPServer{}})
	if err != nil {
		return err
	}
	prompt := func(text string) error {
		_, err := agent.SessionPrompt(ctx, v1.PromptRequest{SessionID: session.SessionID, Prompt: []v1.ContentBlock{v1.ContentBlockText{Text: text}}})
		return err
	}
	return schedule.Measure("ours-go", n, prompt, updates.Load)
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ours_client:", err)
		os.Exit(1)
	}
}

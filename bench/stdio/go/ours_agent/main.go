// Command ours_agent is the two-process bench agent on our generated Go package (v1, stdio; with --listen over WebSocket): the
// work of bench/stdio/ts/agent.mjs, chosen by the prompt's text (bench/stdio/schedule.py).
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"

	"acp-codegen-bench/schedule"
)

type agent struct{ v1.UnimplementedAgent }

func (agent) Initialize(_ context.Context, params v1.InitializeRequest) (v1.InitializeResponse, error) {
	return v1.InitializeResponse{ProtocolVersion: params.ProtocolVersion}, nil
}

func (agent) SessionNew(context.Context, v1.NewSessionRequest) (v1.NewSessionResponse, error) {
	return v1.NewSessionResponse{SessionID: "bench"}, nil
}

func (agent) SessionPrompt(ctx context.Context, params v1.PromptRequest) (v1.PromptResponse, error) {
	var text strings.Builder
	for _, block := range params.Prompt {
		if block, ok := block.(v1.ContentBlockText); ok {
			text.WriteString(block.Text)
		}
	}
	client := v1.ClientOf(ctx)
	kind, n, k := schedule.Work(text.String())
	var err error
	switch kind {
	case "flood":
		update := v1.SessionNotification{SessionID: params.SessionID,
			Update: v1.SessionUpdateAgentMessageChunk{Content: v1.ContentBlockText{Text: schedule.Chunk}}}
		for i := 0; i < n && err == nil; i++ {
			err = client.SessionUpdate(update)
		}
	case "reads":
		read := v1.ReadTextFileRequest{SessionID: params.SessionID, Path: schedule.ReadPath}
		err = schedule.Reads(n, k, func() error {
			_, err := client.FsReadTextFile(ctx, read)
			return err
		})
	}
	if err != nil {
		return v1.PromptResponse{}, err
	}
	return v1.PromptResponse{StopReason: v1.StopReasonEndTurn}, nil
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--listen" {
		listen()
		return
	}
	conn, _ := v1.ConnectAgent(acp.Stdio(), agent{})
	<-conn.Done()
}

// listen serves the agent over WebSocket (bench/remote.py): its URL the first line printed, until
// its stdin ends.
func listen() {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "ours_agent:", err)
		os.Exit(1)
	}
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	fmt.Printf("http://%s/acp\n", listener.Addr())
	if err := v1.ServeRemoteAgent(ctx, listener, func() v1.Agent { return agent{} }, acp.ServeOptions{}); err != nil {
		fmt.Fprintln(os.Stderr, "ours_agent:", err)
		os.Exit(1)
	}
}

// Command ours_agent is the two-process bench agent on our generated Go package (v1, stdio): the
// work of bench/stdio/ts/agent.mjs, chosen by the prompt's text (bench/stdio/schedule.py).
package main

import (
	"context"
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
	conn, _ := v1.ConnectAgent(acp.Stdio(), agent{})
	<-conn.Done()
}

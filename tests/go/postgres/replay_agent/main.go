// A v1 agent on stdio for the cross-runtime replay test (tests/runtime/test_session_replay_runtimes.py):
// `replay_agent DSN SCHEMA [HISTORY_LIMIT]` keeps its sessions in PostgreSQL and has no code for
// session/list, session/load or session/resume: the SDK answers them from the store. Each prompt
// "x" is answered after two chunks, "x:1" and "x:2".
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	acp "acp-protocol-sdk"
	"acp-protocol-sdk/postgres"
	v1 "acp-protocol-sdk/v1"
)

type talker struct{ v1.UnimplementedAgent }

func (talker) Initialize(_ context.Context, params v1.InitializeRequest) (v1.InitializeResponse, error) {
	return v1.InitializeResponse{ProtocolVersion: params.ProtocolVersion}, nil
}

func (talker) SessionNew(context.Context, v1.NewSessionRequest) (v1.NewSessionResponse, error) {
	var random [16]byte
	_, _ = rand.Read(random[:])
	return v1.NewSessionResponse{SessionID: v1.SessionID("sess_" + hex.EncodeToString(random[:]))}, nil
}

func (talker) SessionPrompt(ctx context.Context, params v1.PromptRequest) (v1.PromptResponse, error) {
	encoded, _ := json.Marshal(params)
	var asked struct {
		Prompt []struct {
			Text string `json:"text"`
		} `json:"prompt"`
	}
	_ = json.Unmarshal(encoded, &asked)
	for _, part := range []string{":1", ":2"} {
		text, _ := json.Marshal(asked.Prompt[0].Text + part)
		var note v1.SessionNotification
		frame := fmt.Sprintf(`{"sessionId":%q,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":%s}}}`, params.SessionID, text)
		if err := json.Unmarshal([]byte(frame), &note); err != nil {
			return v1.PromptResponse{}, err
		}
		if err := v1.ClientOf(ctx).SessionUpdate(note); err != nil {
			return v1.PromptResponse{}, err
		}
	}
	return v1.PromptResponse{StopReason: "end_turn"}, nil
}

func main() {
	options := postgres.Options{Schema: os.Args[2]}
	if len(os.Args) > 3 {
		options.HistoryLimit, _ = strconv.Atoi(os.Args[3])
	}
	store, err := postgres.Open(context.Background(), os.Args[1]+"?pool_max_conns=2", options)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer store.Close()
	conn, _ := v1.ConnectAgent(acp.Stdio(), talker{v1.UnimplementedAgent{SessionBackend: store}})
	<-conn.Done()
}

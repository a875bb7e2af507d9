// Command reconnect_client is the Go client of the kill-a-server test
// (tests/scale/test_kill_a_server.py), as tests/typescript/reconnect_client.ts is the
// TypeScript one: `reconnect_client URL` opens a session through nginx with Reconnect, has turns
// `a` and `b` answered, starts `hang` and prints `HOLDER <pid>` once the agent said which process
// holds it; the driver kills that process. Then it prints what happened, one line each:
// `INFLIGHT <error>`, every `LOG <reconnect line>`, `ANSWER <stop reason>` of turn `c` on the new
// process, `SAID <json>` (every update text it was sent), `SESSION <id>`.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
)

// listener keeps the text of every update it is sent, and tells which process holds `hang`.
type listener struct {
	v1.UnimplementedClient
	mu     sync.Mutex
	said   []string
	holder chan string
}

func (l *listener) SessionUpdate(_ context.Context, params v1.SessionNotification) {
	encoded, _ := json.Marshal(params.Update)
	var update struct {
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(encoded, &update)
	l.mu.Lock()
	l.said = append(l.said, update.Content.Text)
	l.mu.Unlock()
	if pid, ok := strings.CutPrefix(update.Content.Text, "hang@"); ok {
		l.holder <- pid
	}
}

func (l *listener) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.said) == 0 {
		return ""
	}
	return l.said[len(l.said)-1]
}

func prompt(session v1.SessionID, text string) v1.PromptRequest {
	return v1.PromptRequest{SessionID: session, Prompt: []v1.ContentBlock{v1.ContentBlockText{Text: text}}}
}

func main() {
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "reconnect_client:", err)
		os.Exit(1)
	}
}

func run(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	print := func(line string) { fmt.Println(line) }
	client := &listener{holder: make(chan string, 1)}
	policy := &acp.Reconnect{FirstDelay: 50 * time.Millisecond, Log: func(line string) { print("LOG " + line) }}
	remote, err := v1.ConnectRemoteAgent(ctx, url, client, acp.RemoteOptions{Reconnect: policy})
	if err != nil {
		return err
	}
	defer remote.Close()
	if _, err := remote.Agent().Initialize(ctx, v1.InitializeRequest{ProtocolVersion: v1.EditionVersion}); err != nil {
		return err
	}
	session, err := remote.Agent().SessionNew(ctx, v1.NewSessionRequest{Cwd: "/work", MCPServers: []v1.MCPServer{}})
	if err != nil {
		return err
	}
	for _, text := range []string{"a", "b"} {
		if _, err := remote.Agent().SessionPrompt(ctx, prompt(session.SessionID, text)); err != nil {
			return err
		}
	}
	inFlight := make(chan error, 1)
	go func() {
		_, err := remote.Agent().SessionPrompt(ctx, prompt(session.SessionID, "hang"))
		inFlight <- err
	}()
	print("HOLDER " + <-client.holder)
	switch err := <-inFlight; {
	case errors.Is(err, acp.ErrConnectionClosed):
		print("INFLIGHT ConnectionClosed")
	default:
		print(fmt.Sprintf("INFLIGHT %v", err))
	}
	if err := remote.Reconnected(ctx); err != nil {
		return err
	}
	answer, err := remote.Agent().SessionPrompt(ctx, prompt(session.SessionID, "c"))
	if err != nil {
		return err
	}
	print("ANSWER " + string(answer.StopReason))
	for client.last() != "c:2" {
		time.Sleep(5 * time.Millisecond)
	}
	client.mu.Lock()
	said, _ := json.Marshal(client.said)
	client.mu.Unlock()
	print("SAID " + string(said))
	print("SESSION " + string(session.SessionID))
	return nil
}

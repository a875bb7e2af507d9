package tests

// Our Go client (v1.ConnectRemoteAgent) against our Go server (v1.ServeRemoteAgent) over
// loopback WebSocket: a whole turn with its streamed updates, session/cancel, an agent per
// connection, and the server's ctx ending every connection.

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
)

// wordsAgent streams a prompt's words back; "slow" sends "working" and waits for its ctx.
type wordsAgent struct {
	v1.UnimplementedAgent
	number int64
}

func (a *wordsAgent) Initialize(_ context.Context, p v1.InitializeRequest) (v1.InitializeResponse, error) {
	return v1.InitializeResponse{ProtocolVersion: p.ProtocolVersion}, nil
}

func (a *wordsAgent) SessionNew(context.Context, v1.NewSessionRequest) (v1.NewSessionResponse, error) {
	return v1.NewSessionResponse{SessionID: v1.SessionID("agent-" + strconv.FormatInt(a.number, 10))}, nil
}

func (a *wordsAgent) SessionPrompt(ctx context.Context, p v1.PromptRequest) (v1.PromptResponse, error) {
	text := p.Prompt[0].(v1.ContentBlockText).Text
	client := v1.ClientOf(ctx)
	say := func(word string) error {
		chunk := v1.NewSessionUpdateAgentMessageChunk(v1.NewContentBlockText(word))
		return client.SessionUpdate(v1.SessionNotification{SessionID: p.SessionID, Update: chunk})
	}
	if text == "slow" {
		if err := say("working"); err != nil {
			return v1.PromptResponse{}, err
		}
		<-ctx.Done()
		return v1.PromptResponse{}, ctx.Err()
	}
	for _, word := range strings.Fields(text) {
		if err := say(word); err != nil {
			return v1.PromptResponse{}, err
		}
	}
	return v1.PromptResponse{StopReason: v1.StopReasonEndTurn}, nil
}

// wordsClient keeps the words it is sent, and signals each.
type wordsClient struct {
	v1.UnimplementedClient
	mu    sync.Mutex
	words []string
	seen  chan struct{}
}

func (c *wordsClient) SessionUpdate(_ context.Context, p v1.SessionNotification) {
	if chunk, ok := p.Update.(v1.SessionUpdateAgentMessageChunk); ok {
		c.mu.Lock()
		c.words = append(c.words, chunk.Content.(v1.ContentBlockText).Text)
		c.mu.Unlock()
		c.seen <- struct{}{}
	}
}

// serveWords serves a wordsAgent per connection on loopback until ctx ends; its ws:// URL and
// the channel ServeRemoteAgent's result arrives on.
func serveWords(t *testing.T, ctx context.Context, made *atomic.Int64) (string, chan error) {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() {
		served <- v1.ServeRemoteAgent(ctx, listener, func() v1.Agent {
			return &wordsAgent{number: made.Add(1)}
		}, acp.ServeOptions{Token: "t0ken"})
	}()
	return "ws://" + listener.Addr().String() + "/acp", served
}

func TestOurGoClientHasAWholeTurnWithOurGoServer(t *testing.T) {
	ctx, stop := context.WithCancel(t.Context())
	var made atomic.Int64
	url, served := serveWords(t, ctx, &made)
	client := &wordsClient{seen: make(chan struct{}, 16)}
	remote, err := v1.ConnectRemoteAgent(t.Context(), url, client, acp.RemoteOptions{Token: "t0ken"})
	if err != nil {
		t.Fatal(err)
	}
	agent := remote.Agent()
	if _, err := agent.Initialize(t.Context(), v1.InitializeRequest{ProtocolVersion: v1.EditionVersion}); err != nil {
		t.Fatal(err)
	}
	session, err := agent.SessionNew(t.Context(), v1.NewSessionRequest{Cwd: "/", MCPServers: []v1.MCPServer{}})
	if err != nil || session.SessionID != "agent-1" {
		t.Fatalf("session/new: %v %v", session.SessionID, err)
	}
	prompt := func(text string) v1.PromptRequest {
		return v1.PromptRequest{SessionID: session.SessionID, Prompt: []v1.ContentBlock{v1.NewContentBlockText(text)}}
	}
	answer, err := agent.SessionPrompt(t.Context(), prompt("one two three"))
	if err != nil || answer.StopReason != v1.StopReasonEndTurn {
		t.Fatalf("the turn: %v %v", answer, err)
	}
	client.mu.Lock()
	words := strings.Join(client.words, " ")
	client.mu.Unlock()
	if words != "one two three" { // updates come before the answer
		t.Fatalf("the updates: %q", client.words)
	}
	for range 3 {
		<-client.seen
	}

	// session/cancel: the prompt's ctx ends, it is answered {"stopReason":"cancelled"}.
	slow := make(chan v1.PromptResponse, 1)
	go func() {
		answer, _ := agent.SessionPrompt(t.Context(), prompt("slow"))
		slow <- answer
	}()
	<-client.seen
	if err := agent.SessionCancel(v1.CancelNotification{SessionID: session.SessionID}); err != nil {
		t.Fatal(err)
	}
	select {
	case answer := <-slow:
		if answer.StopReason != v1.StopReasonCancelled {
			t.Fatalf("the cancelled turn ended %q", answer.StopReason)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled turn was not answered")
	}

	// A second connection gets an agent of its own.
	other, err := v1.ConnectRemoteAgent(t.Context(), url, &wordsClient{seen: make(chan struct{}, 16)}, acp.RemoteOptions{Token: "t0ken"})
	if err != nil {
		t.Fatal(err)
	}
	if second, err := other.Agent().SessionNew(t.Context(), v1.NewSessionRequest{Cwd: "/", MCPServers: []v1.MCPServer{}}); err != nil || second.SessionID != "agent-2" {
		t.Fatalf("the second connection's session: %v %v", second.SessionID, err)
	}

	// The server's ctx ending closes both connections; ServeRemoteAgent returns nil.
	stop()
	if err := <-served; err != nil {
		t.Fatalf("ServeRemoteAgent: %v", err)
	}
	for _, r := range []*v1.RemoteAgent{remote, other} {
		select {
		case <-r.Conn().Done():
		case <-time.After(5 * time.Second):
			t.Fatal("a client's connection outlived the server")
		}
	}
	if _, err := v1.ConnectRemoteAgent(t.Context(), url, client, acp.RemoteOptions{}); err == nil {
		t.Fatal("the server still answers after its ctx ended")
	}
}

package tests

// The Go remote client's reconnect (acp.RemoteOptions.Reconnect, the rules of the Python and
// TypeScript runtimes): bounded attempts with backoff, one log line each; after a loss the
// request in flight fails with ErrConnectionClosed, initialize is sent again and each session
// resumed (sessionCapabilities.resume) or else loaded (loadSession); without the option a lost
// connection stays lost. Through nginx to another process: tests/scale/test_kill_a_server.py.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
)

// seenCalls is what the remote agent was asked, over every connection.
type seenCalls struct {
	mu    sync.Mutex
	calls []string
}

func (s *seenCalls) add(call string) {
	s.mu.Lock()
	s.calls = append(s.calls, call)
	s.mu.Unlock()
}

func (s *seenCalls) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

// remoteAgent answers initialize, session/new and session/prompt (`hang` waits for its ctx).
type remoteAgent struct {
	v1.UnimplementedAgent
	seen    *seenCalls
	hanging chan struct{}
}

func (a remoteAgent) Initialize(_ context.Context, params v1.InitializeRequest) (v1.InitializeResponse, error) {
	a.seen.add("initialize")
	return v1.InitializeResponse{ProtocolVersion: params.ProtocolVersion}, nil
}

func (a remoteAgent) SessionNew(context.Context, v1.NewSessionRequest) (v1.NewSessionResponse, error) {
	a.seen.add("session/new")
	return v1.NewSessionResponse{SessionID: "s-1"}, nil
}

func (a remoteAgent) SessionPrompt(ctx context.Context, params v1.PromptRequest) (v1.PromptResponse, error) {
	if text, ok := params.Prompt[0].(v1.ContentBlockText); ok && text.Text == "hang" {
		a.hanging <- struct{}{}
		<-ctx.Done()
		return v1.PromptResponse{}, ctx.Err()
	}
	return v1.PromptResponse{StopReason: "end_turn"}, nil
}

// resumingAgent advertises and serves session/resume; loadingAgent session/load only.
type resumingAgent struct{ remoteAgent }

func (a resumingAgent) SessionResume(_ context.Context, params v1.ResumeSessionRequest) (v1.ResumeSessionResponse, error) {
	a.seen.add(fmt.Sprintf("session/resume %s %s", params.SessionID, params.Cwd))
	return v1.ResumeSessionResponse{}, nil
}

type loadingAgent struct{ remoteAgent }

func (a loadingAgent) SessionLoad(_ context.Context, params v1.LoadSessionRequest) (v1.LoadSessionResponse, error) {
	a.seen.add(fmt.Sprintf("session/load %s %s", params.SessionID, params.Cwd))
	return v1.LoadSessionResponse{}, nil
}

func serveAgent(t *testing.T, agent v1.Agent) *wsServer {
	return serveWebSocket(t, func(transport acp.Transport) {
		conn, _ := v1.ConnectAgent(transport, agent, acp.EOFGrace(0))
		<-conn.Done()
	})
}

// logLines collects the reconnect's log lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) log(line string) {
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
}

func (l *logLines) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

func TestTheDelayGrowsByTheFactorUpToTheCap(t *testing.T) {
	policy := acp.Reconnect{FirstDelay: 100 * time.Millisecond, Factor: 2, MaxDelay: 500 * time.Millisecond}
	var delays []time.Duration
	for n := 1; n <= 5; n++ {
		delays = append(delays, policy.Delay(n))
	}
	want := []time.Duration{100, 200, 400, 500, 500}
	for i := range want {
		if delays[i] != want[i]*time.Millisecond {
			t.Fatalf("delays %v, want %v ms", delays, want)
		}
	}
	_, err := v1.ConnectRemoteAgent(context.Background(), "ws://127.0.0.1:1/acp", v1.UnimplementedClient{}, acp.RemoteOptions{Reconnect: &acp.Reconnect{Factor: 0.5}})
	if err == nil || !strings.Contains(err.Error(), "factor >= 1") {
		t.Fatalf("a factor below 1: %v", err)
	}
}

func TestStreamableHTTPIsRefusedInOneLineNamingWebSocket(t *testing.T) {
	_, err := v1.ConnectRemoteAgent(context.Background(), "http://127.0.0.1:1/acp", v1.UnimplementedClient{}, acp.RemoteOptions{})
	if err == nil || !strings.Contains(err.Error(), "WebSocket transport (ws://, wss://)") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("an http:// URL: %v", err)
	}
}

func TestALostConnectionIsOpenedAgainAndItsSessionResumedOrLoaded(t *testing.T) {
	for _, c := range []struct {
		method string
		agent  func(remoteAgent) v1.Agent
		how    string
	}{
		{"session/resume", func(a remoteAgent) v1.Agent { return resumingAgent{a} }, "resumed"},
		{"session/load", func(a remoteAgent) v1.Agent { return loadingAgent{a} }, "loaded"},
	} {
		t.Run(c.method, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			seen := &seenCalls{}
			base := remoteAgent{seen: seen, hanging: make(chan struct{}, 1)}
			server := serveAgent(t, c.agent(base))
			logged := &logLines{}
			policy := &acp.Reconnect{Attempts: 3, FirstDelay: 10 * time.Millisecond, Log: logged.log}
			remote, err := v1.ConnectRemoteAgent(ctx, server.URL(), v1.UnimplementedClient{}, acp.RemoteOptions{Reconnect: policy})
			if err != nil {
				t.Fatal(err)
			}
			defer remote.Close()
			if _, err := remote.Agent().Initialize(ctx, v1.InitializeRequest{ProtocolVersion: v1.EditionVersion}); err != nil {
				t.Fatal(err)
			}
			session, err := remote.Agent().SessionNew(ctx, v1.NewSessionRequest{Cwd: "/work", MCPServers: []v1.MCPServer{}})
			if err != nil {
				t.Fatal(err)
			}
			inFlight := make(chan error, 1)
			go func() {
				hang := v1.PromptRequest{SessionID: session.SessionID, Prompt: []v1.ContentBlock{v1.ContentBlockText{Text: "hang"}}}
				_, err := remote.Agent().SessionPrompt(ctx, hang)
				inFlight <- err
			}()
			<-base.hanging
			server.Drop()
			// What was in flight is reported to its caller, never dropped.
			if err := <-inFlight; !errors.Is(err, acp.ErrConnectionClosed) {
				t.Fatalf("the prompt in flight: %v, want ErrConnectionClosed", err)
			}
			if err := remote.Reconnected(ctx); err != nil {
				t.Fatal(err)
			}
			answer, err := remote.Agent().SessionPrompt(ctx, v1.PromptRequest{SessionID: session.SessionID, Prompt: []v1.ContentBlock{v1.ContentBlockText{Text: "c"}}})
			if err != nil || answer.StopReason != "end_turn" {
				t.Fatalf("a prompt after the reconnect: %v %v", answer, err)
			}
			want := []string{"initialize", "session/new", "initialize", c.method + " s-1 /work"}
			if got := seen.list(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("the agent was asked %q, want %q", got, want)
			}
			line := fmt.Sprintf("reconnect 1/3 to %s: connected, 1 session(s) %s", server.URL(), c.how)
			if got := logged.list(); len(got) != 1 || got[0] != line {
				t.Fatalf("logged %q, want one line %q", got, line)
			}
		})
	}
}

func TestWhenEveryAttemptFailsReconnectedFailsAfterOneLinePerAttempt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	server := serveAgent(t, resumingAgent{remoteAgent{seen: &seenCalls{}}})
	url := server.URL()
	logged := &logLines{}
	policy := &acp.Reconnect{Attempts: 3, FirstDelay: time.Millisecond, Log: logged.log}
	remote, err := v1.ConnectRemoteAgent(ctx, url, v1.UnimplementedClient{}, acp.RemoteOptions{Reconnect: policy})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	if _, err := remote.Agent().Initialize(ctx, v1.InitializeRequest{ProtocolVersion: v1.EditionVersion}); err != nil {
		t.Fatal(err)
	}
	lost := remote.Conn()
	server.Close() // no new connection from now on
	server.Drop()
	<-lost.Done()
	err = remote.Reconnected(ctx)
	if !errors.Is(err, acp.ErrConnectionClosed) || !strings.Contains(err.Error(), "failed 3 times") {
		t.Fatalf("Reconnected: %v", err)
	}
	lines := logged.list()
	if len(lines) != 4 || lines[3] != "reconnect to "+url+": gave up after 3 attempts" {
		t.Fatalf("logged %q", lines)
	}
	for n, line := range lines[:3] {
		if !strings.HasPrefix(line, fmt.Sprintf("reconnect %d/3 to %s: failed: ", n+1, url)) || strings.Contains(line, "\n") {
			t.Fatalf("attempt %d logged %q", n+1, line)
		}
	}
}

func TestWithoutReconnectALostConnectionStaysLost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	seen := &seenCalls{}
	server := serveAgent(t, resumingAgent{remoteAgent{seen: seen}})
	remote, err := v1.ConnectRemoteAgent(ctx, server.URL(), v1.UnimplementedClient{}, acp.RemoteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	if _, err := remote.Agent().Initialize(ctx, v1.InitializeRequest{ProtocolVersion: v1.EditionVersion}); err != nil {
		t.Fatal(err)
	}
	server.Drop()
	<-remote.Conn().Done()
	if err := remote.Reconnected(ctx); !errors.Is(err, acp.ErrConnectionClosed) {
		t.Fatalf("Reconnected: %v", err)
	}
	if got := seen.list(); len(got) != 1 {
		t.Fatalf("the agent was asked %q: no second connection", got)
	}
}

package tests

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	"acp-protocol-sdk/wire"
)

// echoAgent streams each text block of a prompt back upper-cased, after reading a file from
// the client with the prompt's ctx.
type echoAgent struct {
	v1.UnimplementedAgent
}

func (echoAgent) Initialize(_ context.Context, params v1.InitializeRequest) (v1.InitializeResponse, error) {
	return v1.InitializeResponse{ProtocolVersion: params.ProtocolVersion}, nil
}

func (echoAgent) SessionNew(context.Context, v1.NewSessionRequest) (v1.NewSessionResponse, error) {
	return v1.NewSessionResponse{SessionID: "s-1"}, nil
}

func (echoAgent) SessionPrompt(ctx context.Context, params v1.PromptRequest) (v1.PromptResponse, error) {
	client := v1.ClientOf(ctx)
	file, err := client.FsReadTextFile(ctx, v1.ReadTextFileRequest{SessionID: params.SessionID, Path: "/notes.txt"})
	if err != nil {
		return v1.PromptResponse{}, err
	}
	chunk := v1.SessionUpdateAgentMessageChunk{Content: v1.ContentBlockText{Text: file.Content}}
	if err := client.SessionUpdate(v1.SessionNotification{SessionID: params.SessionID, Update: chunk}); err != nil {
		return v1.PromptResponse{}, err
	}
	info := v1.SessionUpdateSessionInfoUpdate{Title: wire.Null[string](), Meta: wire.Null[map[string]json.RawMessage]()}
	if err := client.SessionUpdate(v1.SessionNotification{SessionID: params.SessionID, Update: info}); err != nil {
		return v1.PromptResponse{}, err
	}
	return v1.PromptResponse{StopReason: v1.StopReasonEndTurn}, nil
}

// recordingClient serves one file and keeps the updates it gets.
type recordingClient struct {
	v1.UnimplementedClient
	mu      sync.Mutex
	updates []v1.SessionNotification
}

func (c *recordingClient) FsReadTextFile(_ context.Context, params v1.ReadTextFileRequest) (v1.ReadTextFileResponse, error) {
	return v1.ReadTextFileResponse{Content: "contents of " + params.Path}, nil
}

func (c *recordingClient) SessionUpdate(_ context.Context, params v1.SessionNotification) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, params)
}

// pair connects an agent and a client in memory; both are closed when the test ends.
func pair(t *testing.T, agent v1.Agent, client v1.Client) (v1.ClientPeer, v1.AgentPeer) {
	agentEnd, clientEnd := acp.Pipe()
	agentConn, toClient := v1.ConnectAgent(agentEnd, agent)
	clientConn, toAgent := v1.ConnectClient(clientEnd, client)
	t.Cleanup(func() {
		_ = clientConn.Close()
		_ = agentConn.Close()
	})
	return toClient, toAgent
}

func TestATypedAgentAndClientTalk(t *testing.T) {
	client := &recordingClient{}
	_, agent := pair(t, echoAgent{}, client)
	ctx := context.Background()
	initialized, err := agent.Initialize(ctx, v1.InitializeRequest{ProtocolVersion: v1.EditionVersion})
	if err != nil || initialized.ProtocolVersion != v1.EditionVersion {
		t.Fatalf("%+v %v", initialized, err)
	}
	session, err := agent.SessionNew(ctx, v1.NewSessionRequest{Cwd: "/"})
	if err != nil {
		t.Fatal(err)
	}
	done, err := agent.SessionPrompt(ctx, v1.PromptRequest{SessionID: session.SessionID, Prompt: []v1.ContentBlock{v1.ContentBlockText{Text: "hi"}}})
	if err != nil || done.StopReason != v1.StopReasonEndTurn {
		t.Fatalf("%+v %v", done, err)
	}
	client.mu.Lock()
	defer client.mu.Unlock()
	if len(client.updates) != 2 {
		t.Fatalf("%d updates", len(client.updates))
	}
	chunk := client.updates[0].Update.(v1.SessionUpdateAgentMessageChunk)
	if text := chunk.Content.(v1.ContentBlockText).Text; text != "contents of /notes.txt" {
		t.Fatalf("the chunk says %q", text)
	}
	// session_info_update's title and _meta sent as null arrive as null, not absent.
	info := client.updates[1].Update.(v1.SessionUpdateSessionInfoUpdate)
	if !info.Title.IsNull() || !info.Meta.IsNull() || !info.UpdatedAt.IsAbsent() {
		t.Fatalf("%+v", info)
	}
}

func TestAMethodAnAgentDoesNotImplementIsAnswered32601(t *testing.T) {
	_, agent := pair(t, echoAgent{}, &recordingClient{})
	_, err := agent.SessionSetMode(context.Background(), v1.SetSessionModeRequest{SessionID: "s", ModeID: "m"})
	var failure *acp.Error
	if !errors.As(err, &failure) || failure.Code != acp.MethodNotFound || string(failure.Data) != `{"method":"session/set_mode"}` {
		t.Fatalf("%v", err)
	}
}

func TestTypedParamsThatDoNotMatchAreAnswered32602(t *testing.T) {
	_, peer := connect(t, v1.AgentHandler(echoAgent{}))
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[{"name":"x"}]}}`)
	answer, _ := peer.next()
	code, data := errorCode(t, answer)
	if code != acp.InvalidParams || sameJSON(data, []byte(`{"pointer":"/mcpServers/0/command","expected":"a required field"}`)) != "" {
		t.Fatalf("%d %s", code, data)
	}
}

// waitingAgent runs each prompt until its ctx ends.
type waitingAgent struct {
	v1.UnimplementedAgent
	started chan struct{}
}

func (a waitingAgent) SessionPrompt(ctx context.Context, _ v1.PromptRequest) (v1.PromptResponse, error) {
	a.started <- struct{}{}
	<-ctx.Done() // the model and the tools would run here; the cancel ends them
	return v1.PromptResponse{}, ctx.Err()
}

// waitingClient keeps a permission request pending until its ctx ends.
type waitingClient struct {
	v1.UnimplementedClient
	asked chan struct{}
	cause chan error
}

func (c waitingClient) SessionRequestPermission(ctx context.Context, _ v1.RequestPermissionRequest) (v1.RequestPermissionResponse, error) {
	c.asked <- struct{}{}
	<-ctx.Done()
	c.cause <- context.Cause(ctx)
	return v1.RequestPermissionResponse{}, ctx.Err()
}

// The v1 turn rule (prompt-turn § Cancellation): "the Agent MUST respond to the original
// session/prompt request with the cancelled stop reason".
func TestSessionCancelEndsThePromptWithTheCancelledStopReason(t *testing.T) {
	agentImpl := waitingAgent{started: make(chan struct{}, 1)}
	_, agent := pair(t, agentImpl, &recordingClient{})
	prompted := make(chan v1.PromptResponse, 1)
	go func() {
		done, err := agent.SessionPrompt(context.Background(), v1.PromptRequest{SessionID: "s"})
		if err != nil {
			t.Errorf("the prompt failed: %v", err)
		}
		prompted <- done
	}()
	<-agentImpl.started
	if err := agent.SessionCancel(v1.CancelNotification{SessionID: "other"}); err != nil {
		t.Fatal(err)
	}
	select {
	case done := <-prompted:
		t.Fatalf("another session's cancel ended the prompt: %+v", done)
	case <-time.After(100 * time.Millisecond):
	}
	if err := agent.SessionCancel(v1.CancelNotification{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	if done := <-prompted; done.StopReason != v1.StopReasonCancelled {
		t.Fatalf("the prompt ended with %q", done.StopReason)
	}
}

// "the Client MUST respond to all pending session/request_permission requests with the
// cancelled outcome" once it sends session/cancel.
func TestSendingSessionCancelAnswersThePendingPermissionRequestsCancelled(t *testing.T) {
	clientImpl := waitingClient{asked: make(chan struct{}, 1), cause: make(chan error, 1)}
	conn, peer := connect(t, v1.ClientHandler(clientImpl))
	peer.send(`{"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[]}}`)
	<-clientImpl.asked
	if err := (v1.AgentPeer{Conn: conn}).SessionCancel(v1.CancelNotification{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	if cause := <-clientImpl.cause; !errors.Is(cause, acp.ErrTurnCancelled) {
		t.Fatalf("the permission request ended with %v", cause)
	}
	got := map[string]string{}
	for range 2 {
		msg, frame := peer.next()
		got[string(msg["method"])+string(msg["id"])] = frame
	}
	if got[`"session/cancel"`] != `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}` {
		t.Fatalf("%v", got)
	}
	if got[`"p"`] != `{"jsonrpc":"2.0","id":"p","result":{"outcome":{"outcome":"cancelled"}}}` {
		t.Fatalf("%v", got)
	}
}

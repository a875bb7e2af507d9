package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
)

// chattyAgent answers each prompt "x" after two chunks "x:1" and "x:2"; no code for load or resume.
type chattyAgent struct{ v1.UnimplementedAgent }

func (chattyAgent) Initialize(_ context.Context, p v1.InitializeRequest) (v1.InitializeResponse, error) {
	return v1.InitializeResponse{ProtocolVersion: p.ProtocolVersion}, nil
}

func (chattyAgent) SessionNew(context.Context, v1.NewSessionRequest) (v1.NewSessionResponse, error) {
	return v1.NewSessionResponse{SessionID: "s1"}, nil
}

func (chattyAgent) SessionPrompt(ctx context.Context, p v1.PromptRequest) (v1.PromptResponse, error) {
	encoded, _ := json.Marshal(p.Prompt[0])
	var block struct{ Text string }
	_ = json.Unmarshal(encoded, &block)
	for _, part := range []string{":1", ":2"} {
		var note v1.SessionNotification
		_ = json.Unmarshal([]byte(fmt.Sprintf(`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":%q}}}`, block.Text+part)), &note)
		if err := v1.ClientOf(ctx).SessionUpdate(note); err != nil {
			return v1.PromptResponse{}, err
		}
	}
	return v1.PromptResponse{StopReason: "end_turn"}, nil
}

func TestAStoreReplaysTheLastHistoryLimitUpdatesOnLoadAndSaysHowManyItDropped(t *testing.T) {
	// session-setup.mdx: "The Agent MUST replay the entire conversation to the Client in the
	// form of `session/update` notifications"; past the store's cap, its last updates and the drop.
	store := &acp.SessionStore{HistoryLimit: 3}
	_, peer := connect(t, v1.AgentHandler(chattyAgent{v1.UnimplementedAgent{Sessions: store}}))
	peer.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	if answer := nextMsg(peer); !strings.Contains(string(answer["result"]), `"loadSession":true`) || !strings.Contains(string(answer["result"]), `"resume":{}`) {
		t.Fatalf("%s", answer["result"])
	}
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	nextMsg(peer)
	for id, text := range []string{"a", "b"} {
		peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":%q}]}}`, id+2, text))
		for answer := nextMsg(peer); answer["id"] == nil; answer = nextMsg(peer) {
		}
	}
	if record, ok := store.Get("s1"); !ok || record.Cwd != "/w" {
		t.Fatalf("session/new not recorded: %+v", record)
	}
	peer.send(`{"jsonrpc":"2.0","id":9,"method":"session/load","params":{"sessionId":"s1","cwd":"/w","mcpServers":[]}}`)
	var replayed []string
	answer := nextMsg(peer)
	for ; answer["id"] == nil; answer = nextMsg(peer) {
		var note struct {
			Update struct{ Content struct{ Text string } }
		}
		_ = json.Unmarshal(answer["params"], &note)
		replayed = append(replayed, note.Update.Content.Text)
	}
	if strings.Join(replayed, " ") != "a:2 b:1 b:2" {
		t.Fatalf("replayed %v", replayed)
	}
	if string(answer["result"]) != `{"_meta":{"acp-codegen/replay":{"dropped":1,"limit":3,"replayed":3}}}` {
		t.Fatalf("%s", answer["result"])
	}
	peer.send(`{"jsonrpc":"2.0","id":10,"method":"session/resume","params":{"sessionId":"nope","cwd":"/w"}}`)
	if answer := nextMsg(peer); !strings.Contains(string(answer["error"]), `-32002`) || !strings.Contains(string(answer["error"]), `"sessionId":"nope"`) {
		t.Fatalf("%s", answer["error"])
	}
}

// failingBackend is a store whose writes fail (a database gone away).
type failingBackend struct{ acp.SessionBackend }

func (failingBackend) AppendUpdates(context.Context, string, []json.RawMessage) error {
	return errors.New("disk full")
}

func TestAStoreThatCannotWriteMakesTheTurnsAnswerAnInternalError(t *testing.T) {
	// The turn's answer waits for its updates to be kept: never an answered turn a replay would
	// not show.
	backend := failingBackend{acp.BackendOf(&acp.SessionStore{})}
	_, peer := connect(t, v1.AgentHandler(chattyAgent{v1.UnimplementedAgent{SessionBackend: backend}}))
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	nextMsg(peer)
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"a"}]}}`)
	answer := nextMsg(peer)
	for ; answer["id"] == nil; answer = nextMsg(peer) {
	}
	if want := `{"code":-32603,"message":"Internal error","data":{"details":"session updates not recorded: disk full"}}`; string(answer["error"]) != want {
		t.Fatalf("%s", answer["error"])
	}
}

// blockingBackend is a store whose writes never answer (a database hung): each returns only
// when its ctx ends, which it reports.
type blockingBackend struct {
	acp.SessionBackend
	asked chan context.Context
}

func (b blockingBackend) AppendUpdates(ctx context.Context, _ string, _ []json.RawMessage) error {
	b.asked <- ctx
	<-ctx.Done()
	return ctx.Err()
}

func TestAStoreThatDoesNotAnswerFailsTheTurnWithinTheRecordTimeout(t *testing.T) {
	// A hung database must not hold the turn's answer: each write has RecordTimeout, then the
	// answer is -32603 as for any write that failed.
	defer func(kept time.Duration) { acp.RecordTimeout = kept }(acp.RecordTimeout)
	acp.RecordTimeout = 200 * time.Millisecond
	backend := blockingBackend{acp.BackendOf(&acp.SessionStore{}), make(chan context.Context, 8)}
	conn, peer := connect(t, v1.AgentHandler(chattyAgent{v1.UnimplementedAgent{SessionBackend: backend}}))
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	nextMsg(peer)
	started := time.Now()
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"a"}]}}`)
	answer := nextMsg(peer)
	for ; answer["id"] == nil; answer = nextMsg(peer) {
	}
	if want := `{"code":-32603,"message":"Internal error","data":{"details":"session updates not recorded: the store did not answer within 200ms"}}`; string(answer["error"]) != want {
		t.Fatalf("%s", answer["error"])
	}
	if waited := time.Since(started); waited > 5*time.Second {
		t.Fatalf("the answer took %v", waited)
	}
	ctx := <-backend.asked
	if _, bounded := ctx.Deadline(); !bounded || acp.ConnectionOf(ctx) != conn {
		t.Fatalf("the write's ctx: a deadline %v, the connection's %v", bounded, acp.ConnectionOf(ctx) == conn)
	}
}

// keptBackend keeps what each write was given.
type keptBackend struct {
	acp.SessionBackend
	writes chan []string
}

func (k keptBackend) AppendUpdates(_ context.Context, session string, updates []json.RawMessage) error {
	write := []string{session}
	for _, update := range updates {
		write = append(write, string(update))
	}
	k.writes <- write
	return nil
}

func TestTheUpdateRecordedIsTheOneSentByteForByte(t *testing.T) {
	// Encoded once: the store is given the update as the frame carries it, whatever its
	// session id and text hold (quotes, backslashes, braces, escapes, non-ASCII).
	backend := keptBackend{acp.BackendOf(&acp.SessionStore{}), make(chan []string, 8)}
	conn, peer := connect(t, v1.AgentHandler(chattyAgent{v1.UnimplementedAgent{SessionBackend: backend}}))
	var note v1.SessionNotification
	sent := `{"sessionId":"s\"1\\ {","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"} ] \" \\ \u2028 é , {\"sessionId\":\"x\"}"}}}`
	if err := json.Unmarshal([]byte(sent), &note); err != nil {
		t.Fatal(err)
	}
	if err := (v1.ClientPeer{Conn: conn}).SessionUpdate(note); err != nil {
		t.Fatal(err)
	}
	var frame struct {
		Params struct {
			Update json.RawMessage `json:"update"`
		} `json:"params"`
	}
	received := nextMsg(peer)
	if err := json.Unmarshal(received["params"], &frame.Params); err != nil {
		t.Fatal(err)
	}
	select {
	case write := <-backend.writes:
		if len(write) != 2 || write[0] != `s"1\ {` || write[1] != string(frame.Params.Update) {
			t.Fatalf("recorded %q, sent %s", write, frame.Params.Update)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("nothing recorded")
	}
}

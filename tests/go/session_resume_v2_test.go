package tests

// ACP v2's session/resume answered from a session store by any process sharing it, with no code
// in the agent (session_replay.go, session_resume.go), rule by rule from the v2 schema's own text,
// as the Python and TypeScript runtimes' (tests/runtime/test_session_resume_v2.py): what is
// asserted is exactly what the client receives on the wire. v2 has no session/load.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	acp "acp-protocol-sdk"
	v2 "acp-protocol-sdk/v2"
)

// talkerV2 says each word of a prompt as a chunk; it knows nothing of stores, resume or replay.
type talkerV2 struct{ v2.UnimplementedAgent }

func (talkerV2) Initialize(context.Context, v2.InitializeRequest) (v2.InitializeResponse, error) {
	return v2.InitializeResponse{ProtocolVersion: 2, Info: v2.Implementation{Name: "t", Version: "1"}}, nil
}

func (talkerV2) SessionNew(context.Context, v2.NewSessionRequest) (v2.NewSessionResponse, error) {
	return v2.NewSessionResponse{SessionID: "s1"}, nil
}

func (talkerV2) SessionPrompt(ctx context.Context, params v2.PromptRequest) (string, error) {
	text := ""
	if block, ok := params.Prompt[0].(v2.ContentBlockText); ok {
		text = block.Text
	}
	for _, word := range strings.Fields(text) {
		var note v2.UpdateSessionNotification
		frame := fmt.Sprintf(`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","messageId":"a","content":{"type":"text","text":%q}}}`, word)
		if err := json.Unmarshal([]byte(frame), &note); err != nil {
			return "", err
		}
		if err := v2.ClientOf(ctx).SessionUpdate(note); err != nil {
			return "", err
		}
	}
	return "", nil
}

// resumeKinds sends a request and names each frame up to its answer: a chunk its text, another
// update its kind (a state update with its state), the answer "answer", an error "error CODE".
func resumeKinds(t *testing.T, peer *rawPeer, id int, method, params string) []string {
	t.Helper()
	peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	var kinds []string
	for {
		msg := nextMsg(peer)
		if msg["method"] == nil {
			if msg["error"] != nil {
				var failure struct{ Code int }
				_ = json.Unmarshal(msg["error"], &failure)
				return append(kinds, fmt.Sprintf("error %d", failure.Code))
			}
			return append(kinds, "answer")
		}
		var note struct {
			Update struct {
				SessionUpdate string
				State         string
				Content       struct{ Text string }
			}
		}
		_ = json.Unmarshal(msg["params"], &note)
		switch u := note.Update; {
		case u.SessionUpdate == "agent_message_chunk":
			kinds = append(kinds, u.Content.Text)
		case u.State != "":
			kinds = append(kinds, u.SessionUpdate+" "+u.State)
		default:
			kinds = append(kinds, u.SessionUpdate)
		}
	}
}

// startedV2 is a store holding session s1, opened by a first connection that ran prompts on it.
func startedV2(t *testing.T, prompts ...string) *acp.SessionStore {
	t.Helper()
	store := &acp.SessionStore{}
	_, peer := connect(t, v2.AgentHandler(talkerV2{v2.UnimplementedAgent{Sessions: store}}))
	resumeKinds(t, peer, 0, "initialize", `{"protocolVersion":2,"info":{"name":"c","version":"1"}}`)
	resumeKinds(t, peer, 1, "session/new", `{"cwd":"/w"}`)
	for n, text := range prompts {
		resumeKinds(t, peer, n+2, "session/prompt", fmt.Sprintf(`{"sessionId":"s1","prompt":[{"type":"text","text":%q}]}`, text))
		for msg := nextMsg(peer); !strings.Contains(string(msg["params"]), `"state":"idle"`); msg = nextMsg(peer) {
		}
	}
	return store
}

// secondV2 is another connection (process) on store, initialized; its initialize answer.
func secondV2(t *testing.T, store *acp.SessionStore) (*rawPeer, string) {
	t.Helper()
	_, peer := connect(t, v2.AgentHandler(talkerV2{v2.UnimplementedAgent{Sessions: store}}))
	peer.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"c","version":"1"}}}`)
	return peer, string(nextMsg(peer)["result"])
}

func TestV2AStoreServesResumeAndTheAgentAdvertisesTheSessionBaseline(t *testing.T) {
	// AgentCapabilities.session: "Supplying `{}` means the Agent supports the baseline session
	// methods: `session/new`, `session/list`, `session/resume`, `session/close`,
	// `session/prompt`, `session/cancel`, and `session/update`".
	if _, answer := secondV2(t, &acp.SessionStore{}); !strings.Contains(answer, `"capabilities":{"session":{}}`) {
		t.Fatalf("initialize answered %s", answer)
	}
}

func TestV2ResumeReplaysAsReplayFromSays(t *testing.T) {
	store := startedV2(t, "a b", "c")
	peer, _ := secondV2(t, store)
	for _, c := range []struct{ rule, params, want string }{
		{`replayFrom: "Omitted and null are equivalent, and the Agent MUST NOT replay previous conversation history"; ResumeSessionResponse: "a current state_update [...] even without replay"`,
			`{"sessionId":"s1","cwd":"/w"}`, "state_update idle|answer"},
		{`(null)`, `{"sessionId":"s1","cwd":"/w","replayFrom":null}`, "state_update idle|answer"},
		{`replayFrom: "Supplying { "type": "start" } means the Agent MUST replay all retained conversation history before responding"; ReplayComplete: "exactly once [...] after the last replayed update for that session and before the response"; state updates are snapshots, not history`,
			`{"sessionId":"s1","cwd":"/w","replayFrom":{"type":"start"}}`, "user_message|a|b|user_message|c|replay_complete|state_update idle|answer"},
		{`replayFrom: "Agents MUST reject unsupported cursor types or malformed cursor values with -32602 (Invalid params)"`,
			`{"sessionId":"s1","cwd":"/w","replayFrom":{"type":"_acme_offset","offset":1}}`, "error -32602"},
		{`(another cursor type)`, `{"sessionId":"s1","cwd":"/w","replayFrom":{"type":"messageId","id":"m"}}`, "error -32602"},
		{`an unknown session is -32002, as v1's`, `{"sessionId":"nope","cwd":"/w","replayFrom":{"type":"start"}}`, "error -32002"},
	} {
		if got := strings.Join(resumeKinds(t, peer, 7, "session/resume", c.params), "|"); got != c.want {
			t.Errorf("%s\n%s: got %s, want %s", c.rule, c.params, got, c.want)
		}
	}
}

func TestV2AnEmptyReplayStillEndsWithTheMarker(t *testing.T) {
	// ReplayComplete: "exactly once [...] before the response, even for an empty replay".
	peer, _ := secondV2(t, startedV2(t))
	got := strings.Join(resumeKinds(t, peer, 1, "session/resume", `{"sessionId":"s1","cwd":"/w","replayFrom":{"type":"start"}}`), "|")
	if got != "replay_complete|state_update idle|answer" {
		t.Fatalf("got %s", got)
	}
}

// slowReads is a backend whose ReadUpdates says it started (reading) and waits for release.
type slowReads struct {
	acp.SessionBackend
	reading, release chan struct{}
}

func (s slowReads) ReadUpdates(ctx context.Context, id string) (acp.Replay, error) {
	close(s.reading)
	<-s.release
	return s.SessionBackend.ReadUpdates(ctx, id)
}

// gatedTalker says "a", then waits for gate, then says "live".
type gatedTalker struct {
	talkerV2
	gate chan struct{}
}

func (g gatedTalker) SessionPrompt(ctx context.Context, params v2.PromptRequest) (string, error) {
	for n, word := range []string{"a", "live"} {
		if n == 1 {
			<-g.gate
		}
		var note v2.UpdateSessionNotification
		_ = json.Unmarshal([]byte(fmt.Sprintf(`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","messageId":"a","content":{"type":"text","text":%q}}}`, word)), &note)
		if err := v2.ClientOf(ctx).SessionUpdate(note); err != nil {
			return "", err
		}
	}
	return "", nil
}

func TestV2LiveUpdatesAreHeldDuringTheReplayAndTheStateIsCurrent(t *testing.T) {
	// ReplayComplete: "After receiving the request, the Agent MUST hold live updates for the
	// session during replay." replay_complete: "Every update for the session between the
	// `session/resume` request and this update is replayed history. Every update after it is
	// not." The work still running on this connection makes the current state running.
	backend := slowReads{acp.BackendOf(&acp.SessionStore{}), make(chan struct{}), make(chan struct{})}
	gate := make(chan struct{})
	_, peer := connect(t, v2.AgentHandler(gatedTalker{talkerV2{v2.UnimplementedAgent{SessionBackend: backend}}, gate}))
	resumeKinds(t, peer, 0, "initialize", `{"protocolVersion":2,"info":{"name":"c","version":"1"}}`)
	resumeKinds(t, peer, 1, "session/new", `{"cwd":"/w"}`)
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"go"}]}}`)
	for msg := nextMsg(peer); !strings.Contains(string(msg["params"]), `"text":"a"`); msg = nextMsg(peer) {
	}
	done := make(chan []string)
	go func() {
		<-backend.reading
		close(gate) // the work says "live" while the replay is being read
		time.Sleep(50 * time.Millisecond)
		close(backend.release)
	}()
	go func() {
		done <- resumeKinds(t, peer, 3, "session/resume", `{"sessionId":"s1","cwd":"/w","replayFrom":{"type":"start"}}`)
	}()
	got := <-done
	if len(got) < 4 || strings.Join(got[:4], "|") != "user_message|a|replay_complete|state_update running" {
		t.Fatalf("before the answer: %v", got)
	}
	if rest := strings.Join(got[4:], "|"); rest != "answer" && rest != "live|answer" {
		t.Fatalf("after the state: %v", got[4:])
	}
}

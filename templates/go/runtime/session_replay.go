package acp

// Layer: typed layer (what the generated agent adds, on each connection, for an agent with a
// session store: UnimplementedAgent's Sessions or SessionBackend). The same rules as the Python
// runtime's session_replay.py and the TypeScript one's session_replay.ts:
//   - each session/new it answers is recorded in the store (under the params' cwd);
//   - each session/update it sends (through its peer, acp.Send) is appended to the session's
//     history in the store, in the order sent, and written before the turn's answer: "the Agent
//     MUST respond to the original `session/prompt` request" only once this process has kept what
//     the turn sent, so an answered turn is never missing from a later replay, whichever process
//     replays it. A write that fails, or that the store has not answered within RecordTimeout,
//     makes the answer -32603 (one log line), never a turn a replay would not show;
//   - session/load answered from the store: "The Agent MUST replay the entire conversation to the
//     Client in the form of `session/update` notifications" (v1 session-setup.mdx), then the
//     result. A history past the store's cap replays its last updates and says how many it
//     dropped in the result's _meta (ReplayMeta) and in one log line;
//   - session/resume answered from the store: "resume the session context, allowing the
//     conversation to continue without replaying the message history".
// A session the store does not know is -32002 (ACP's "Resource not found").

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"acp-protocol-sdk/wire"
)

// ReplayMeta is the _meta key of a session/load result whose replay lost updates to the cap:
// {"replayed": n, "dropped": k, "limit": the store's history limit}.
const ReplayMeta = "acp-codegen/replay"

const (
	methodUpdate = "session/update"
	methodPrompt = "session/prompt"
	methodNew    = "session/new"
	methodLoad   = "session/load"
	methodResume = "session/resume"
)

// RecordTimeout bounds each write of the updates a connection sent (30 s unless set; read when
// a connection starts): a store that has not answered by then fails the write, which makes the
// turn's answer -32603 as any failed write does, so a hung database never holds an answer.
var RecordTimeout = 30 * time.Second

// KeepSessions has the engine record, in store, each session this connection's agent creates
// and each update it sends, and answer session/load and session/resume from it (AnswerFromStore);
// a nil store keeps nothing. It returns the engine.
func (e *BehaviourEngine) KeepSessions(store SessionBackend) *BehaviourEngine {
	if store != nil {
		// The writes take the connection's ctx without its end: what was sent is written even
		// when the connection closes first (as in every runtime), each within RecordTimeout.
		e.replay = &sessionReplay{store: store, ctx: context.WithoutCancel(e.conn.base), timeout: RecordTimeout}
	}
	return e
}

// sessionReplay is one connection's share of a store: the updates it sent not yet written.
type sessionReplay struct {
	store   SessionBackend
	ctx     context.Context
	timeout time.Duration
	mu      sync.Mutex
	pending []sentUpdate
	drained chan struct{} // closed when the running drain has written everything; nil: none runs
	failed  error
}

type sentUpdate struct {
	session string
	update  json.RawMessage
}

// record queues the update of a sent session/update (its params as the frame carries them); a
// goroutine appends the queue in order.
func (r *sessionReplay) record(params json.RawMessage) {
	session, update := sentUpdateOf(params)
	if session == "" || update == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = append(r.pending, sentUpdate{session, update})
	if r.drained == nil {
		r.drained = make(chan struct{})
		go r.drain(r.drained)
	}
}

// sentUpdateOf is the sessionId and the update of a session/update's params as paramsJSON wrote
// them (compact JSON), found in one pass over the bytes, not decoded: the update is a slice of
// params (the bytes the frame carries), the id decoded only when it holds an escape.
func sentUpdateOf(params []byte) (session string, update json.RawMessage) {
	if len(params) < 2 || params[0] != '{' {
		return "", nil
	}
	for i := 1; i < len(params) && params[i] == '"'; {
		colon := stringEnd(params, i)
		if colon < 0 || colon >= len(params) || params[colon] != ':' {
			return "", nil
		}
		end := valueEnd(params, colon+1)
		if end <= colon+1 {
			return "", nil
		}
		value := params[colon+1 : end]
		switch string(params[i+1 : colon-1]) {
		case "sessionId":
			if len(value) < 2 || value[0] != '"' {
				return "", nil
			}
			if bytes.IndexByte(value, '\\') < 0 {
				session = string(value[1 : len(value)-1])
			} else if json.Unmarshal(value, &session) != nil {
				return "", nil
			}
		case "update":
			update = value
		}
		i = end
		if i < len(params) && params[i] == ',' {
			i++
		}
	}
	return session, update
}

// stringEnd is the index after the JSON string that starts at b[i] ('"'), or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd is the index after the JSON value that starts at b[i], or -1.
func valueEnd(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			if i = stringEnd(b, i) - 1; i < 0 {
				return -1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// drain appends what is queued, a run of one session at a time, until the queue is empty.
func (r *sessionReplay) drain(done chan struct{}) {
	for {
		r.mu.Lock()
		batch := r.pending
		r.pending = nil
		if len(batch) == 0 {
			r.drained = nil
			close(done)
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		for start := 0; start < len(batch); {
			end := start
			updates := []json.RawMessage{}
			for ; end < len(batch) && batch[end].session == batch[start].session; end++ {
				updates = append(updates, batch[end].update)
			}
			if err := r.write(batch[start].session, updates); err != nil {
				log.Printf("acp: session updates not recorded: %v", err)
				r.mu.Lock()
				if r.failed == nil {
					r.failed = err
				}
				r.mu.Unlock()
			}
			start = end
		}
	}
}

// write appends one session's updates, within the timeout.
func (r *sessionReplay) write(session string, updates []json.RawMessage) error {
	ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
	defer cancel()
	err := r.store.AppendUpdates(ctx, session, updates)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the store did not answer within %v", r.timeout)
	}
	return err
}

// barrier returns once every update recorded so far is written, a cancelled turn's too (the
// writes do not take the request's ctx, and each ends within the timeout); a failed write is
// this answer's error (the client must not be told a turn ended that a replay would not show).
func (r *sessionReplay) barrier() error {
	r.mu.Lock()
	done := r.drained
	r.mu.Unlock()
	if done != nil {
		<-done
	}
	r.mu.Lock()
	failed := r.failed
	r.failed = nil
	r.mu.Unlock()
	if failed != nil {
		data, _ := json.Marshal(map[string]string{"details": "session updates not recorded: " + failed.Error()})
		return &Error{Code: InternalError, Message: "Internal error", Data: data}
	}
	return nil
}

// answered runs after the agent's answer, before it is sent: a new session is recorded, a
// turn's updates are written.
func (r *sessionReplay) answered(ctx context.Context, method string, params json.RawMessage, result any) error {
	switch method {
	case methodPrompt:
		return r.barrier()
	case methodNew:
		answer, err := paramsJSON(result)
		if err != nil {
			return err
		}
		var made struct {
			SessionID string `json:"sessionId"`
		}
		var asked struct {
			Cwd string `json:"cwd"`
		}
		if json.Unmarshal(answer, &made) != nil || made.SessionID == "" || json.Unmarshal(params, &asked) != nil {
			return nil
		}
		_, err = r.store.Create(ctx, made.SessionID, asked.Cwd, wire.Opt[string]{})
		return err
	}
	return nil
}

// AnswerFromStore answers session/load or session/resume (params: the request's, as received)
// of session id from the store the connection of ctx keeps (KeepSessions): the load's replay is
// sent first, on the connection, not recorded again; a resume replays as the edition's
// Behaviour.Resume says (session_resume.go); the answer is decoded with decode.
func AnswerFromStore[R any](ctx context.Context, method string, params json.RawMessage, id string, decode wire.Decoder[R]) (R, error) {
	var answer R
	encoded, err := fromStore(ctx, method, params, id)
	if err != nil {
		return answer, err
	}
	return wire.Decode(encoded, decode)
}

func fromStore(ctx context.Context, method string, params json.RawMessage, id string) (json.RawMessage, error) {
	e := engineOf(ConnectionOf(ctx))
	if e == nil || e.replay == nil {
		return nil, MethodNotFoundError(method)
	}
	r := e.replay
	rule := e.behaviour.Resume
	replaying := false
	if method != methodLoad && rule != nil {
		var err error
		if replaying, err = rule.Wanted(params); err != nil { // -32602 before anything is sent
			return nil, err
		}
	}
	if _, known, err := r.store.Get(ctx, id); err != nil {
		return nil, err
	} else if !known {
		data, _ := json.Marshal(map[string]string{"sessionId": id})
		return nil, &Error{Code: ResourceNotFound, Message: "Resource not found", Data: data}
	}
	if method != methodLoad && (rule == nil || rule.Cursor == "") {
		return json.RawMessage(`{}`), nil
	}
	if method != methodLoad {
		return e.resumeFromStore(ctx, rule, id, replaying)
	}
	if err := r.barrier(); err != nil { // this connection's own updates first
		return nil, err
	}
	replay, err := r.store.ReadUpdates(ctx, id)
	if err != nil {
		return nil, err
	}
	session, _ := json.Marshal(id)
	for _, update := range replay.Updates {
		note := map[string]json.RawMessage{"sessionId": session, "update": update}
		if err := e.conn.Notify(methodUpdate, note); err != nil {
			return nil, err
		}
	}
	if replay.Dropped == 0 {
		return json.RawMessage(`{}`), nil
	}
	log.Printf("acp: session %s: replayed its last %d updates; %d older ones are past the store's history limit (%d)",
		id, len(replay.Updates), replay.Dropped, replay.Limit)
	meta := map[string]int{"replayed": len(replay.Updates), "dropped": replay.Dropped, "limit": replay.Limit}
	return json.Marshal(map[string]any{"_meta": map[string]any{ReplayMeta: meta}})
}

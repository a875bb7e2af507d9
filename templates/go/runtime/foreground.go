package acp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"acp-protocol-sdk/wire"
)

// Layer: typed layer. The prompt lifecycle where the prompt is answered at insertion (ACP v2),
// agent side: the foreground work of a connection's sessions, which its BehaviourEngine owns
// and runs the prompt, session/cancel and session/close through, as the schema's descriptions
// ask:
//
//   - PromptResponse: "Response acknowledging that a user prompt was inserted into the ACP
//     conversation. [...] Processing and completion are reported through `state_update`
//     session updates." A prompt is inserted with a fresh message id (echoed in a user_message
//     update: "Agents must echo the message during the live session") and answered with it;
//     the user's prompt method then runs as the session's foreground work, in a goroutine the
//     connection owns, started once the answer is written.
//   - StateUpdate: "the agent MUST report `running` when foreground work starts [...] and
//     `idle` when it ends. The agent SHOULD include a stop reason on that idle update."
//   - A prompt sent while work runs is held, and inserted when the work ends.
//   - PromptRequest.idempotencyKey (the lifecycle's RetryKey): "A retry of a recorded insertion
//     returns the original `messageId` without inserting another message." (prompt_retry.go).
//   - CancelSessionNotification: "cancel a session's foreground work and its prompts not yet
//     inserted": the work's ctx ends (its pending requests are cancelled with it), held
//     prompts are answered -32800.
//   - CloseSessionRequest: "When closing cancels active foreground work, the Agent MUST send
//     the final updates for that work and the idle `state_update` with `stopReason:
//     "cancelled"` before responding successfully to `session/close`."

// ErrSessionCancelled is the cause of a foreground work's ctx that the lifecycle's cancel
// (session/cancel) or close (session/close) ended.
var ErrSessionCancelled = errors.New("acp: the session's foreground work was cancelled")

// foreground is one lifecycle's sessions on one connection (its BehaviourEngine's).
type foreground struct {
	life *PromptLifecycle
	conn *Connection

	mu       sync.Mutex
	sessions map[string]*foregroundSession
}

type foregroundSession struct {
	work *work // the running (or inserted, not yet started) work; nil when idle
	held []*heldPrompt
	// inserted is the message id of each insertion that carried a retry key, by key: kept
	// while the session is idle too, forgotten by close (prompt_retry.go).
	inserted map[string]string
}

// heldPrompt waits for its turn: ready gets nil once it has the session (work is its own) or
// once the insertion it retries was made while it was held (retried is that insertion's
// message id), or the error it is answered with.
type heldPrompt struct {
	ready     chan error
	requestID json.RawMessage
	key       string // its retry key ("": none)
	work      *work
	retried   string
}

// work is one inserted prompt's foreground work.
type work struct {
	f         *foreground
	session   string
	messageID string // the inserted message's id
	ctx       context.Context
	cancel    context.CancelCauseFunc
	done      chan struct{} // closed once its idle update is written

	mu      sync.Mutex
	waiting int // user-action requests pending
}

type workKey struct{}

// insert inserts the prompt (params decoded with the schema's checks: -32602 before anything is
// inserted) once the session's work ahead of it ended, and answers it with the message id; run
// then runs with a ctx that session/cancel, session/close and the connection's close end. Its
// stop reason ("": the lifecycle's end of turn) goes on the idle update. A retry of a recorded
// insertion is answered with its message id, and inserts nothing.
func (f *foreground) insert(ctx context.Context, session string, params json.RawMessage, run func(context.Context) (string, error)) (any, error) {
	var named map[string]json.RawMessage
	if json.Unmarshal(params, &named) != nil {
		named = nil
	}
	w, retried, err := f.claim(ctx, session, retryKeyOf(f.life, named))
	if err != nil {
		return nil, err
	}
	if w == nil { // a retry: nothing is inserted, no work runs
		return map[string]string{f.life.MessageID: retried}, nil
	}
	states := f.life.States
	messageID := w.messageID
	echo := map[string]any{states.UpdateTag: states.UserMessage, "messageId": messageID}
	if named["prompt"] != nil {
		echo["content"] = named["prompt"]
	}
	if err := f.update(session, echo); err != nil {
		f.ended(w)
		return nil, err
	}
	if err := f.state(session, states.Running, nil); err != nil {
		f.ended(w)
		return nil, err
	}
	answer := map[string]string{f.life.MessageID: messageID}
	return &insertion{answer: answer, start: func() { f.start(w, run) }}, nil
}

// claim waits until the session has no work ahead of this prompt (held behind it), then makes
// the prompt's work the session's and records its retry key (key "": none). A retry of a
// recorded insertion claims nothing: its work is nil, retried the insertion's message id.
func (f *foreground) claim(ctx context.Context, session, key string) (*work, string, error) {
	requestID := RequestIDOf(ctx)
	f.mu.Lock()
	s := f.sessions[session]
	if s == nil {
		s = &foregroundSession{}
		f.sessions[session] = s
	}
	if id, ok := s.recorded(key); ok { // answered at once, even while that insertion's work runs
		f.mu.Unlock()
		return nil, id, nil
	}
	if s.work == nil && len(s.held) == 0 {
		w := f.begin(session, s, requestID)
		s.record(key, w)
		f.mu.Unlock()
		return w, "", nil
	}
	h := &heldPrompt{ready: make(chan error, 1), requestID: requestID, key: key}
	s.held = append(s.held, h)
	f.mu.Unlock()
	select {
	case err := <-h.ready:
		if err != nil || h.work == nil {
			return nil, h.retried, err
		}
		f.mu.Lock()
		s.record(key, h.work) // recorded once it is sure to be inserted: not when withdrawn
		f.mu.Unlock()
		return h.work, "", nil
	case <-ctx.Done(): // $/cancel_request withdraws a held prompt: -32800
		f.mu.Lock()
		defer f.mu.Unlock()
		if h.work != nil { // handed the session as it was withdrawn: the next one's turn
			h.work.cancel(context.Cause(ctx))
			f.endLocked(h.work)
		} else {
			s.held = slices.DeleteFunc(s.held, func(other *heldPrompt) bool { return other == h })
		}
		return nil, "", context.Cause(ctx)
	}
}

// begin makes a new work the session's (f.mu held).
func (f *foreground) begin(session string, s *foregroundSession, requestID json.RawMessage) *work {
	w := &work{f: f, session: session, messageID: newMessageID(), done: make(chan struct{})}
	base := context.WithValue(context.WithValue(f.conn.base, requestIDKey{}, requestID), workKey{}, w)
	w.ctx, w.cancel = context.WithCancelCause(base)
	s.work = w
	return w
}

// passOn gives the session to its first held prompt, or leaves it idle (f.mu held). A held
// retry of an insertion made while it was held is answered with that insertion's message id
// and inserts nothing: the session goes on to the next one.
func (f *foreground) passOn(session string, s *foregroundSession) {
	s.work = nil
	for len(s.held) > 0 {
		h := s.held[0]
		s.held = s.held[1:]
		if id, ok := s.recorded(h.key); ok {
			h.retried = id
			h.ready <- nil
			continue
		}
		h.work = f.begin(session, s, h.requestID)
		h.ready <- nil
		return
	}
}

// start runs the work once the prompt's answer is written, in a goroutine of the connection.
func (f *foreground) start(w *work, run func(context.Context) (string, error)) {
	if !f.conn.spawn(func(context.Context) { f.run(w, run) }) {
		w.cancel(ErrConnectionClosed)
		f.ended(w)
	}
}

func (f *foreground) run(w *work, run func(context.Context) (string, error)) {
	life := f.life
	reason, err := life.Cancelled, error(nil)
	if w.ctx.Err() == nil { // else cancelled between insertion and its start
		reason, err = run(w.ctx)
	}
	idle := map[string]any{}
	switch {
	case err != nil && w.ctx.Err() != nil:
		reason = life.Cancelled
	case err != nil: // the work failed: reported, never lost
		reason = life.EndTurn
		if life.Failed != "" {
			reason, idle["error"] = life.Failed, ErrorFor(err)
		}
	case reason == "" && w.ctx.Err() != nil:
		reason = life.Cancelled
	case reason == "":
		reason = life.EndTurn
	}
	w.cancel(nil) // its requests still pending are cancelled
	idle[life.States.StopReason] = reason
	_ = f.state(w.session, life.States.Idle, idle) // a closed connection has nobody to tell
	f.ended(w)
}

// ended marks the work done and passes the session on.
func (f *foreground) ended(w *work) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.endLocked(w)
}

// endLocked is ended with f.mu held.
func (f *foreground) endLocked(w *work) {
	w.cancel(nil)
	close(w.done)
	if s := f.sessions[w.session]; s != nil && s.work == w {
		f.passOn(w.session, s)
	}
}

// cancel answers the session's held prompts -32800 and ends its work's ctx; the work's done
// channel (nil when none runs).
func (f *foreground) cancel(session string) <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sessions[session]
	if s == nil {
		return nil
	}
	data, _ := json.Marshal(map[string]string{"reason": f.life.Cancel})
	for _, h := range s.held {
		h.ready <- &Error{Code: RequestCancelled, Message: "Request cancelled", Data: data}
	}
	s.held = nil
	if s.work == nil {
		return nil
	}
	s.work.cancel(ErrSessionCancelled)
	return s.work.done
}

// close cancels the session's work and returns once its idle update is written (or ctx ends);
// the session is then forgotten, its retry keys with it (idempotencyKey: "For a live-only
// message, it MUST recognize the key while the session stays active on a connection").
// "Closing a session that does not exist or is not active SHOULD succeed".
func (f *foreground) close(ctx context.Context, session string) error {
	if done := f.cancel(session); done != nil {
		select {
		case <-done:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if s := f.sessions[session]; s != nil {
		s.inserted = nil
		if s.work == nil && len(s.held) == 0 {
			delete(f.sessions, session)
		}
	}
	return nil
}

func (f *foreground) state(session, state string, extra map[string]any) error {
	states := f.life.States
	update := map[string]any{states.UpdateTag: states.UpdateValue, states.StateTag: state}
	for key, value := range extra {
		update[key] = value
	}
	return f.update(session, update)
}

func (f *foreground) update(session string, update map[string]any) error {
	// Sent as the agent's own updates are (Send): recorded in a session store, held by a replay.
	return Send(f.conn, f.life.States.Notification, map[string]any{"sessionId": session, "update": update})
}

// CallAwaitingUser is Call for a request that waits on the user (the lifecycle's user-action
// requests: permissions, elicitations; the template picks them). Made by a prompt's foreground
// work, StateUpdate: "The agent SHOULD report `requires_action` when the foreground workflow as
// a whole cannot progress without user action, including permissions or elicitations. Once
// reported, it MUST report `running` when progress resumes" — the first pending one reports
// requires_action, the last one answered running ("Resolving one of several requests does not
// itself change the state"); a work cancelled meanwhile goes to idle instead.
func CallAwaitingUser[P, R any](ctx context.Context, conn *Connection, method string, params P, decode wire.Decoder[R]) (R, error) {
	if w, ok := ctx.Value(workKey{}).(*work); ok {
		defer w.awaitingUser()()
	}
	return Call(ctx, conn, method, params, decode)
}

// awaitingUser reports requires_action for the first pending user-action request; the
// returned func, called once it is answered, reports running after the last one.
func (w *work) awaitingUser() func() {
	states := w.f.life.States
	w.mu.Lock()
	w.waiting++
	first := w.waiting == 1
	w.mu.Unlock()
	if first {
		_ = w.f.state(w.session, states.RequiresAction, nil)
	}
	return func() {
		w.mu.Lock()
		w.waiting--
		last := w.waiting == 0
		w.mu.Unlock()
		if last && w.ctx.Err() == nil {
			_ = w.f.state(w.session, states.Running, nil)
		}
	}
}

// insertion is the answer of an inserted prompt; its work starts once the answer is written.
type insertion struct {
	answer map[string]string
	start  func()
}

func (i *insertion) MarshalJSON() ([]byte, error) { return json.Marshal(i.answer) }

func (i *insertion) answered() { i.start() }

func newMessageID() string {
	var random [16]byte
	_, _ = rand.Read(random[:])
	return hex.EncodeToString(random[:])
}

// StateOf reads a session update (typed, or its wire form) as the lifecycle's state updates
// say: the state and the stop reason of a state update, ok false for any other update (and
// where the lifecycle has no state updates). A client follows a session's work with it.
func StateOf(life *PromptLifecycle, update any) (state, stopReason string, ok bool) {
	if life == nil || life.States == nil {
		return "", "", false
	}
	raw, err := paramsJSON(update)
	if err != nil {
		return "", "", false
	}
	var members map[string]json.RawMessage
	var kind string
	states := life.States
	if json.Unmarshal(raw, &members) != nil || json.Unmarshal(members[states.UpdateTag], &kind) != nil || kind != states.UpdateValue {
		return "", "", false
	}
	_ = json.Unmarshal(members[states.StopReason], &stopReason)
	return state, stopReason, json.Unmarshal(members[states.StateTag], &state) == nil
}

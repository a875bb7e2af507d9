package acp

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"sync"

	"acp-protocol-sdk/wire"
)

// Layer: typed layer. The client's view of one session under a prompt lifecycle answered at
// insertion (ACP v2): send a prompt and get its message id, follow the session's updates, and
// wait until its foreground work is idle again, with the stop reason. The same view as the
// TypeScript runtime's session_view.ts and the Python runtime's session_view.py. Methods, tags
// and values come from the edition's PromptLifecycle; nothing here asks which edition it serves.
//
//   - PromptResponse: "Response acknowledging that a user prompt was inserted into the ACP
//     conversation. [...] Processing and completion are reported through `state_update` session
//     updates."
//   - StateUpdate: "A new session defaults to idle until a state update reports otherwise."
//   - IdleStateUpdate: "Receivers treat an omitted, `null`, or malformed `stopReason` as the
//     agent not reporting one."
//
// The views of a connection are fed by the generated client handler (Observe, before the
// user's method sees the notification); a view starts no goroutine.

// SessionView is one session as the client sees it, from the view's making on: U is the
// edition's session update union, B its content block. Its methods are safe for concurrent use.
type SessionView[U, B any] struct {
	session string
	conn    *Connection
	life    *PromptLifecycle
	views   *sessionViews
	decode  wire.Decoder[U]
	checked func(json.RawMessage) error // the prompt answer's schema checks
	table   *StateTable                 // the edition's client-state table

	mu         sync.Mutex
	updates    []U
	marks      []updateMark
	state      string
	stopReason string
	changed    chan struct{} // closed, and replaced, by each update
}

// updateMark is what the lifecycle reads in one update's wire form.
type updateMark struct {
	kind, messageID, state, stopReason string
}

// ViewSession is the view of session on conn (made on first use: it sees the session's updates
// from then on); each edition's generated peer calls it (v2.AgentPeer.Session). decode reads an
// update, answer checks the prompt's answer, table is the edition's client-state table.
func ViewSession[U, B, R any](conn *Connection, life *PromptLifecycle, session string, decode wire.Decoder[U], answer wire.Decoder[R], table *StateTable) *SessionView[U, B] {
	if conn == nil || life == nil || life.States == nil || table == nil {
		panic("acp: a session view needs a connection, a lifecycle with state updates and a state table")
	}
	views := viewsOf(conn)
	views.mu.Lock()
	defer views.mu.Unlock()
	if found, ok := views.sessions[session].(*SessionView[U, B]); ok {
		return found
	}
	v := &SessionView[U, B]{
		session: session, conn: conn, life: life, views: views, decode: decode,
		checked: func(raw json.RawMessage) error {
			var result R
			return answer(raw, &result)
		},
		table:   table,
		state:   life.States.Idle,
		changed: make(chan struct{}),
	}
	views.sessions[session] = v
	return v
}

// SessionID is the session's id.
func (v *SessionView[U, B]) SessionID() string {
	return v.session
}

// Prompt sends the lifecycle's prompt request with prompt as the message and returns the
// inserted message's id (a prompt the agent holds returns once it is inserted, or fails -32800
// when the session's work is cancelled first). A ctx that ends withdraws it ($/cancel_request).
// The message's updates sent before the answer are in the view when Prompt returns.
func (v *SessionView[U, B]) Prompt(ctx context.Context, prompt []B) (string, error) {
	if prompt == nil {
		prompt = []B{}
	}
	params := struct {
		SessionID string `json:"sessionId"`
		Prompt    []B    `json:"prompt"`
	}{v.session, prompt}
	raw, err := v.conn.Request(ctx, v.life.Prompt, params)
	if err != nil {
		return "", err
	}
	if err := v.checked(raw); err != nil {
		return "", err
	}
	var members map[string]json.RawMessage
	var id string
	if json.Unmarshal(raw, &members) != nil || json.Unmarshal(members[v.life.MessageID], &id) != nil {
		return "", errors.New("acp: the " + v.life.Prompt + " answer has no " + v.life.MessageID)
	}
	return id, nil
}

// Cancel sends the lifecycle's cancel notification (session/cancel): "cancel a session's
// foreground work and its prompts not yet inserted".
func (v *SessionView[U, B]) Cancel() error {
	return v.conn.Notify(v.life.Cancel, map[string]string{"sessionId": v.session})
}

// Idle waits for the idle update that ends the work of the prompt inserted as messageID (the
// first idle after its echo: a user_message, or a user_message_chunk, with that id), however
// early it came, and returns its stop reason ("": the agent reported none). With messageID "",
// it returns at once if the session is idle, else at the next idle update.
//
// When ctx ends, Idle stops waiting and returns ctx's cause, as the other views do. With an
// acp.Graceful ctx it sends the lifecycle's cancel instead and keeps waiting for the idle
// update (its stop reason: cancelled, or the one of work that ended first). The connection's
// close ends the wait with the connection's error.
func (v *SessionView[U, B]) Idle(ctx context.Context, messageID string) (string, error) {
	states := v.life.States
	v.mu.Lock()
	if messageID == "" && v.state == states.Idle {
		defer v.mu.Unlock()
		return v.stopReason, nil
	}
	next, echoed := 0, messageID == ""
	if echoed {
		next = len(v.marks)
	}
	v.mu.Unlock()
	done, graceful, closed := ctx.Done(), isGraceful(ctx), false
	for {
		v.mu.Lock()
		for ; next < len(v.marks); next++ {
			mark := v.marks[next]
			switch {
			case !echoed:
				echo := mark.kind == states.UserMessage || mark.kind == states.UserChunk
				echoed = echo && mark.messageID == messageID
			case mark.kind == states.UpdateValue && mark.state == states.Idle:
				v.mu.Unlock()
				return mark.stopReason, nil
			}
		}
		changed := v.changed
		v.mu.Unlock()
		if closed {
			return "", v.conn.Err()
		}
		select {
		case <-changed:
		case <-v.conn.Done(): // no update comes after: one last look
			closed = true
		case <-done:
			if !graceful {
				return "", context.Cause(ctx)
			}
			done = nil
			if err := v.Cancel(); err != nil {
				return "", err
			}
		}
	}
}

// State is the foreground state last reported (idle until a state update says otherwise) and
// the stop reason of the last idle update ("": none reported).
func (v *SessionView[U, B]) State() (state, stopReason string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.state, v.stopReason
}

// SessionState is the session as its messages left it (the connection's client state, kept
// whether or not the view was made): messages with their chunks, tool calls, terminals, the
// plan, commands, config options, info, usage, the run state, each keyed as the schema's x-state
// says. Get reads a target, Entries a collection in arrival order, Snapshot all of it as JSON.
func (v *SessionView[U, B]) SessionState() *SessionState {
	return ClientStateOf(v.conn, v.table).Session(v.session)
}

// StateSnapshot is SessionState().Snapshot(): the session's state as plain JSON.
func (v *SessionView[U, B]) StateSnapshot() map[string]any {
	return v.SessionState().Snapshot()
}

// OnStateChange calls listener with what changed after each message applied to this session's
// state (StateApplied.Changes: target, entry id, action), or kept in its log; it returns the
// function that unsubscribes it.
func (v *SessionView[U, B]) OnStateChange(listener func(StateApplied)) (cancel func()) {
	return ClientStateOf(v.conn, v.table).OnStateChange(listener, v.session)
}

// Updates is every update of the session the view has received, in arrival order.
func (v *SessionView[U, B]) Updates() []U {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.updates)
}

// Stream yields the view's updates from its first on, then each as it arrives, until ctx ends
// or the connection closes; break out of it at any time.
func (v *SessionView[U, B]) Stream(ctx context.Context) iter.Seq[U] {
	return func(yield func(U) bool) {
		next, closed := 0, false
		for {
			v.mu.Lock()
			arrived := v.updates[next:len(v.updates):len(v.updates)] // appends never touch it
			changed := v.changed
			v.mu.Unlock()
			for _, update := range arrived {
				next++
				if !yield(update) {
					return
				}
			}
			if len(arrived) > 0 {
				continue
			}
			if closed {
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			case <-v.conn.Done():
				closed = true
			}
		}
	}
}

// Forget drops the view from its connection (after session/close, say): a later view of the
// session starts afresh, and this one receives nothing more.
func (v *SessionView[U, B]) Forget() {
	v.views.mu.Lock()
	defer v.views.mu.Unlock()
	if v.views.sessions[v.session] == sessionReceiver(v) {
		delete(v.views.sessions, v.session)
	}
}

// receive takes one update of the session, in its wire form (the notification loop calls it,
// in arrival order); an update that does not decode is dropped.
func (v *SessionView[U, B]) receive(raw json.RawMessage) {
	var update U
	if v.decode(raw, &update) != nil {
		return
	}
	states := v.life.States
	members, _ := wire.SplitObject(raw) // decoded just above: an object
	var mark updateMark
	_ = json.Unmarshal(members[states.UpdateTag], &mark.kind)
	switch mark.kind {
	case states.UserMessage, states.UserChunk:
		_ = json.Unmarshal(members["messageId"], &mark.messageID)
	case states.UpdateValue:
		_ = json.Unmarshal(members[states.StateTag], &mark.state)
		// IdleStateUpdate: "Receivers treat an omitted, `null`, or malformed `stopReason` as
		// the agent not reporting one."
		if json.Unmarshal(members[states.StopReason], &mark.stopReason) != nil {
			mark.stopReason = ""
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.updates = append(v.updates, update)
	v.marks = append(v.marks, mark)
	if mark.state != "" {
		v.state = mark.state
		if mark.state == states.Idle {
			v.stopReason = mark.stopReason
		}
	}
	close(v.changed)
	v.changed = make(chan struct{})
}

// Observe is Take for the lifecycle's state notification (session/update) on the side that
// receives it: params decoded with the schema's checks (dropped when they do not match), the
// update handed to the view of its session on the connection (its BehaviourEngine's, under
// life), if any, then method called.
func Observe[P any](ctx context.Context, params json.RawMessage, decode wire.Decoder[P], method func(context.Context, P), life *PromptLifecycle) {
	var value P
	if decode(params, &value) != nil {
		return
	}
	if e := engineOf(ConnectionOf(ctx)); e != nil && e.views != nil && e.insertion == life {
		e.views.receive(params)
	}
	method(ctx, value)
}

// sessionViews is the session views of one connection, kept by its BehaviourEngine (the
// engine of the side receiving the lifecycle's state updates).
type sessionViews struct {
	mu       sync.Mutex
	sessions map[string]sessionReceiver
}

type sessionReceiver interface {
	receive(update json.RawMessage)
}

// viewsOf is conn's session views: its engine's, or for a connection whose handler is no role's
// (nothing feeds its views) views of their own.
func viewsOf(conn *Connection) *sessionViews {
	if e := engineOf(conn); e != nil && e.views != nil {
		return e.views
	}
	return &sessionViews{sessions: map[string]sessionReceiver{}}
}

// receive hands a notification's update to the view of its session.
func (s *sessionViews) receive(params json.RawMessage) {
	// Observe decoded params just before: one pass to find the two members, no reflection.
	members, err := wire.SplitObject(params)
	var session string
	if err != nil || json.Unmarshal(members["sessionId"], &session) != nil {
		return
	}
	s.mu.Lock()
	view := s.sessions[session]
	s.mu.Unlock()
	if view != nil {
		view.receive(members["update"])
	}
}

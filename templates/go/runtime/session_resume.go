package acp

// Layer: typed layer (what a session store sends for session/resume where the edition's resume
// replays from a cursor the client names: ACP v2; the same rules as the Python runtime's
// session_resume.py and the TypeScript one's session_resume.ts).
//
// The rule's text (v2 schema, ResumeSessionRequest.replayFrom): "Omitted and `null` are
// equivalent, and the Agent MUST NOT replay previous conversation history. [...] Supplying
// `{ "type": "start" }` means the Agent MUST replay all retained conversation history before
// responding. Agents MUST reject unsupported cursor types or malformed cursor values with
// `-32602` (Invalid params), rather than substituting another cursor or resuming without
// replay." The store keeps no position but the start, so every other cursor is unsupported.
//
// ReplayComplete: "The Agent MUST send this exactly once on a session for each `session/resume`
// request with a `replayFrom` cursor, after the last replayed update for that session and before
// the response, even for an empty replay. After receiving the request, the Agent MUST hold live
// updates for the session during replay." ResumeSessionResponse: "The Agent MUST send a current
// `state_update` after any requested history replay and before this response, even without
// replay." What is not history (NotHistory: the state updates, "Resume MUST send a current-state
// snapshot after any replay"; notices, "not part of session history") is neither recorded nor
// replayed. v2 answers a prompt at insertion: its answer waits for the echo's write, and a
// work's updates are written before its idle update (in the work, so that a cancel arriving
// meanwhile still ends it cancelled).

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// ResumeReplay is how Method (session/resume) replays a session's history when a session store
// answers it. Cursor "": it never replays (v1: "without returning previous messages"). Else the
// params' Cursor names where replay begins: omitted or null, nowhere; {CursorTag: Start}, every
// retained update; any other is answered Unsupported. A replay ends with the Marker update;
// NotHistory are the updates that are not history (never recorded, never replayed).
type ResumeReplay struct {
	Method      string
	Cursor      string
	CursorTag   string
	Start       string
	Unsupported int
	Marker      string
	NotHistory  []string
}

// Wanted is whether the resume request (its params as received) asks for a replay; an *Error
// with the rule's code for a cursor the store cannot serve.
func (r *ResumeReplay) Wanted(params json.RawMessage) (bool, error) {
	if r.Cursor == "" {
		return false, nil
	}
	var named map[string]json.RawMessage
	_ = json.Unmarshal(params, &named)
	cursor, given := named[r.Cursor]
	if !given || string(cursor) == "null" { // "Omitted and `null` are equivalent": no replay
		return false, nil
	}
	var fields map[string]json.RawMessage
	var tag any
	if json.Unmarshal(cursor, &fields) == nil {
		_ = json.Unmarshal(fields[r.CursorTag], &tag)
	}
	if tag == r.Start {
		return true, nil
	}
	data, _ := json.Marshal(map[string]any{r.Cursor: cursor, "supported": []map[string]string{{r.CursorTag: r.Start}}, "type": tag})
	message := fmt.Sprintf("unsupported %s: the session store replays from {%q: %q} only", r.Cursor, r.CursorTag, r.Start)
	return false, &Error{Code: r.Unsupported, Message: message, Data: data}
}

// IsHistory is whether a session update is part of the history a replay sends.
func (r *ResumeReplay) IsHistory(update json.RawMessage) bool {
	if r == nil || len(r.NotHistory) == 0 {
		return true
	}
	var tagged struct {
		SessionUpdate string `json:"sessionUpdate"`
	}
	return json.Unmarshal(update, &tagged) != nil || !slices.Contains(r.NotHistory, tagged.SessionUpdate)
}

// Replayed is what a replay from the start sends: the retained history, then the marker.
func (r *ResumeReplay) Replayed(updates []json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(updates)+1)
	for _, update := range updates {
		if r.IsHistory(update) {
			out = append(out, update)
		}
	}
	marker, _ := json.Marshal(map[string]string{"sessionUpdate": r.Marker})
	return append(out, marker)
}

// replayHolds are the sessions whose live updates wait for a replay in progress, each with the
// number of its replays and a channel closed when the last one ends.
type replayHolds struct {
	mu    sync.Mutex
	count map[string]int
	done  map[string]chan struct{}
}

func (h *replayHolds) hold(session string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.count == nil {
		h.count, h.done = map[string]int{}, map[string]chan struct{}{}
	}
	if h.count[session] == 0 {
		h.done[session] = make(chan struct{})
	}
	h.count[session]++
}

func (h *replayHolds) release(session string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.count[session]--; h.count[session] == 0 {
		close(h.done[session])
		delete(h.count, session)
		delete(h.done, session)
	}
}

// wait returns once no replay of session is in progress.
func (h *replayHolds) wait(session string) {
	h.mu.Lock()
	done := h.done[session]
	h.mu.Unlock()
	if done != nil {
		<-done
	}
}

// beforeRecord runs before a sent session/update (its params) is recorded: it waits while a
// replay of its session is in progress, and says whether the update is history (recorded).
func (e *BehaviourEngine) beforeRecord(params json.RawMessage) bool {
	session, update := sentUpdateOf(params)
	if session != "" {
		e.held.wait(session)
	}
	return e.behaviour.Resume.IsHistory(update)
}

// settled returns once every update recorded so far is written (a failed write stays for the
// next answer to report), or once ctx ends: a work's updates are in the store before its idle
// update, and a work cancelled meanwhile still ends cancelled.
func (r *sessionReplay) settled(ctx context.Context) {
	r.mu.Lock()
	done := r.drained
	r.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
}

// resumeFromStore answers a session/resume of a known session as rule says (replaying: the
// client asked for a replay from the start): the history and the marker, then the current
// state update, the session's live updates held meanwhile.
func (e *BehaviourEngine) resumeFromStore(ctx context.Context, rule *ResumeReplay, id string, replaying bool) (json.RawMessage, error) {
	life := e.behaviour.Lifecycle
	if life == nil || life.States == nil {
		return json.RawMessage(`{}`), nil
	}
	states := life.States
	e.held.hold(id) // "the Agent MUST hold live updates for the session during replay"
	defer e.held.release(id)
	if err := e.replay.barrier(); err != nil { // this connection's own updates first
		return nil, err
	}
	answer := json.RawMessage(`{}`)
	session, _ := json.Marshal(id)
	if replaying {
		replay, err := e.replay.store.ReadUpdates(ctx, id)
		if err != nil {
			return nil, err
		}
		for _, update := range rule.Replayed(replay.Updates) {
			if err := e.conn.Notify(methodUpdate, map[string]json.RawMessage{"sessionId": session, "update": update}); err != nil {
				return nil, err
			}
		}
		if replay.Dropped > 0 {
			meta := map[string]int{"replayed": len(replay.Updates), "dropped": replay.Dropped, "limit": replay.Limit}
			answer, _ = json.Marshal(map[string]any{"_meta": map[string]any{ReplayMeta: meta}})
		}
	}
	state := states.Idle
	if e.foreground != nil {
		state = e.foreground.current(id)
	}
	snapshot := map[string]any{states.UpdateTag: states.UpdateValue, states.StateTag: state}
	if err := e.conn.Notify(methodUpdate, map[string]any{"sessionId": id, "update": snapshot}); err != nil {
		return nil, err
	}
	return answer, nil
}

// current is the session's foreground state now: running while a work runs (requires_action
// while it waits on the user), else idle ("A new session defaults to idle").
func (f *foreground) current(session string) string {
	states := f.life.States
	f.mu.Lock()
	s := f.sessions[session]
	var w *work
	if s != nil {
		w = s.work
	}
	f.mu.Unlock()
	if w == nil {
		return states.Idle
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiting > 0 {
		return states.RequiresAction
	}
	return states.Running
}

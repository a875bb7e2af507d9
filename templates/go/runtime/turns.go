package acp

// Layer: typed layer (the turn rules: session/cancel ends the prompt it names).

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"acp-protocol-sdk/wire"
)

// ErrTurnCancelled is the cause of a request ctx that its turn rule's cancel ended
// (session/cancel for the session's prompt, or the client's pending permission requests).
var ErrTurnCancelled = errors.New("acp: the session's turn was cancelled")

// sessionField names the session in a turn rule's request and cancel: a TurnRule's cancel is a
// notification with a sessionId (acp_codegen/ir/surface.py).
const sessionField = "sessionId"

type turnKey struct {
	method  string
	session string
}

// turnTable is a connection's requests under a turn rule, by method and session.
type turnTable struct {
	mu     sync.Mutex
	active map[turnKey]map[*context.CancelCauseFunc]struct{}
}

func (t *turnTable) track(key turnKey, cancel *context.CancelCauseFunc) func() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.active == nil {
		t.active = map[turnKey]map[*context.CancelCauseFunc]struct{}{}
	}
	if t.active[key] == nil {
		t.active[key] = map[*context.CancelCauseFunc]struct{}{}
	}
	t.active[key][cancel] = struct{}{}
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(t.active[key], cancel)
		if len(t.active[key]) == 0 {
			delete(t.active, key)
		}
	}
}

func (t *turnTable) cancel(key turnKey) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for cancel := range t.active[key] {
		(*cancel)(ErrTurnCancelled)
	}
}

func sessionOf(params json.RawMessage) string {
	var named map[string]json.RawMessage
	var session string
	if json.Unmarshal(params, &named) == nil {
		_ = wire.String(named[sessionField], &session)
	}
	return session
}

// AnswerTurn is Answer for the request of a turn rule: when the rule's cancel ends it (CancelTurn)
// and the handler returns an error, it is answered with the rule's result ({"stopReason":
// "cancelled"}), never an error; a handler that returns a result anyway is answered with it.
func AnswerTurn[P, R any](ctx context.Context, params json.RawMessage, decode wire.Decoder[P], method func(context.Context, P) (R, error), rule *TurnRule) (any, error) {
	var value P
	if err := decode(params, &value); err != nil {
		return nil, err
	}
	conn := ConnectionOf(ctx)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if conn != nil {
		defer conn.turns.track(turnKey{rule.Method, sessionOf(params)}, &cancel)()
	}
	result, err := method(ctx, value)
	if err != nil && errors.Is(context.Cause(ctx), ErrTurnCancelled) {
		return json.RawMessage(rule.Result), nil
	}
	return result, err
}

// CancelTurn ends, on conn, the requests of rule's method in the session cancel names (the
// rule's cancel notification, typed or raw) with ErrTurnCancelled.
func CancelTurn(conn *Connection, rule *TurnRule, cancel any) {
	raw, err := paramsJSON(cancel)
	if conn == nil || err != nil {
		return
	}
	conn.turns.cancel(turnKey{rule.Method, sessionOf(raw)})
}

package acp

// Layer: typed layer (v1's turn rules, carried out by the BehaviourEngine: the rule's cancel
// ends the session's turns, which answer the rule's result).

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
// notification with a sessionId (acp_codegen/ir/behaviour.py).
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

// turn runs call as a turn of rule's method in the session params name: when the rule's cancel
// ends it and call returns an error, it is answered with the rule's result (prompt-turn.mdx:
// "the Agent MUST respond to the original `session/prompt` request with the `cancelled` stop
// reason"; "the Client MUST respond to all pending `session/request_permission` requests with
// the `cancelled` outcome"), never an error; a call that returns a result anyway is answered
// with it.
func (e *BehaviourEngine) turn(ctx context.Context, rule *TurnRule, params json.RawMessage, call func(context.Context) (any, error)) (any, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer e.turns.track(turnKey{rule.Method, sessionOf(params)}, &cancel)()
	result, err := call(ctx)
	if err != nil && errors.Is(context.Cause(ctx), ErrTurnCancelled) {
		return json.RawMessage(rule.Result), nil
	}
	return result, err
}

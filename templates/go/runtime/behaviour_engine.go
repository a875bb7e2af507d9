package acp

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
)

// Layer: typed layer (the behaviour engine: every rule of an edition a role's handler carries
// out around the user's typed methods, on one connection).
//
// One BehaviourEngine per connection reads the edition's Behaviour (rendered per edition from
// the IR) and the role's turn rule (its entry of Behaviour.TurnRules, ACP v1's feature-level
// cancellation), and decides, per method, what happens around the user's method: version
// negotiation and capabilities in initialize, v1's turns that the rule's cancel ends with a
// result, v2's prompt lifecycle (foreground work, session/cancel, session/close), the result a
// request the peer cancels gets. The role's handler has one path for every request: it routes,
// Answer decodes the params with the schema's checks, and the engine runs the call, as is when
// no rule owns the method. It holds the connection's typed-layer state (turns, foreground work,
// session views, client state); the Connection under it holds none. The same engine as the
// Python runtime's behaviour_engine.py. Nothing here asks which edition it serves: every branch
// is on the rules' data.

// BehaviourEngine carries out an edition's Behaviour and a role's turn rule on one connection.
// A role's generated handler makes it when a connection starts (Binder), and it is the Handler
// the connection serves: requests a rule owns reach the role's Answer marked as ruled, and the
// notifications a rule acts on are acted on before the role's method sees them.
type BehaviourEngine struct {
	conn      *Connection
	handler   Handler
	behaviour *Behaviour
	rule      *TurnRule
	serves    func(method string) bool
	// insertion is the lifecycle answered at insertion (v2), or nil.
	insertion *PromptLifecycle
	owned     map[string]struct{} // the requests a rule acts around (of those the role handles)
	noted     map[string]struct{} // the notifications a rule acts on (of those it receives)

	turns      turnTable
	foreground *foreground    // the sessions of the side answering an inserted prompt
	views      *sessionViews  // the sessions of the side receiving the state updates
	replay     *sessionReplay // the agent's session store (KeepSessions, session_replay.go), or nil
	held       replayHolds    // the sessions whose live updates wait for a replay (session_resume.go)

	mu     sync.Mutex
	states map[*StateTable]*ClientState
}

// NewBehaviourEngine is the engine of role (its Requests, Notifications and TurnRule, an entry
// of behaviour's TurnRules) on conn around handler (the role's generated router). serves says
// which optional requests the handler serves (nil: none is advertised); initialize advertises
// each capability whose required methods it serves.
func NewBehaviourEngine(conn *Connection, handler Handler, behaviour *Behaviour, role *Role, serves func(method string) bool) *BehaviourEngine {
	e := &BehaviourEngine{conn: conn, handler: handler, behaviour: behaviour, rule: role.TurnRule, serves: serves}
	requests, notifications := role.Requests, role.Notifications
	own := func(methods []string, names ...string) map[string]struct{} {
		set := map[string]struct{}{}
		for _, name := range names {
			if name != "" && slices.Contains(methods, name) {
				set[name] = struct{}{}
			}
		}
		return set
	}
	names := []string{behaviour.Negotiation.Method}
	for _, outcome := range behaviour.CancelOutcomes {
		names = append(names, outcome.Method)
	}
	var cancels []string
	if life := behaviour.Lifecycle; life != nil && life.Answer == Insertion {
		e.insertion = life
		names = append(names, life.Prompt, life.Close)
		cancels = append(cancels, life.Cancel)
		if slices.Contains(requests, life.Prompt) {
			e.foreground = &foreground{life: life, conn: conn, sessions: map[string]*foregroundSession{}}
		}
		if life.States != nil && slices.Contains(notifications, life.States.Notification) {
			e.views = &sessionViews{sessions: map[string]sessionReceiver{}}
		}
	}
	if rule := e.rule; rule != nil {
		names = append(names, rule.Method)
		if rule.Received {
			cancels = append(cancels, rule.Cancel)
		}
	}
	e.owned, e.noted = own(requests, names...), own(notifications, cancels...)
	return e
}

// engineOf is the engine of conn (nil for nil, or a connection whose handler is no role's).
func engineOf(conn *Connection) *BehaviourEngine {
	if conn == nil {
		return nil
	}
	e, _ := conn.handler.(*BehaviourEngine)
	return e
}

// ruledKey marks the ctx of a request a rule owns, as the engine hands it to the role's router.
type ruledKey struct{}

// ruled is a request a rule owns: Answer hands its call back to the engine once its params
// decode, with the request's own ctx (the user's method never sees the mark).
type ruled struct {
	engine *BehaviourEngine
	method string
	ctx    context.Context
}

// HandleRequest routes the request to the role's router; a request a rule owns goes marked, and
// initialize answers an unsupported version before its params are decoded: "If no such version
// exists, initialization fails with error code -32022" (a client of another version sends its
// version's params, and should learn which versions meet, not which of our fields it lacks).
func (e *BehaviourEngine) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	result, err := e.handleRequest(ctx, method, params)
	if err == nil && e.replay != nil {
		err = e.replay.answered(ctx, method, params, result)
	}
	return result, err
}

func (e *BehaviourEngine) handleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if _, owned := e.owned[method]; !owned {
		return e.handler.HandleRequest(ctx, method, params)
	}
	if method == e.behaviour.Negotiation.Method {
		if err := e.behaviour.Negotiation.check(params); err != nil {
			return nil, err
		}
	}
	return e.handler.HandleRequest(context.WithValue(ctx, ruledKey{}, &ruled{e, method, ctx}), method, params)
}

// HandleNotification acts on a notification a rule names (the cancel this side receives), then
// hands it to the role's router.
func (e *BehaviourEngine) HandleNotification(ctx context.Context, method string, params json.RawMessage) {
	if _, noted := e.noted[method]; noted {
		e.cancelled(method, params)
	}
	e.handler.HandleNotification(ctx, method, params)
}

// request runs call (the user's method with the decoded params) under the rules of method;
// params are the request's, as they came.
func (e *BehaviourEngine) request(ctx context.Context, method string, params json.RawMessage, call func(context.Context) (any, error)) (any, error) {
	if method == e.behaviour.Negotiation.Method {
		return e.initialize(ctx, call)
	}
	if life := e.insertion; life != nil && e.foreground != nil {
		switch method {
		case life.Prompt:
			session := sessionOf(params)
			if session == "" {
				return nil, errors.New("acp: a prompt is inserted only into a session of a connection")
			}
			return e.foreground.insert(ctx, session, params, func(ctx context.Context) (string, error) {
				result, err := call(ctx)
				reason, _ := result.(string) // the stop reason ("": the lifecycle's end of turn)
				if e.replay != nil {
					e.replay.settled(ctx) // the work's updates are in the store before its idle
				}
				return reason, err
			})
		case life.Close:
			// CloseSessionRequest: "When closing cancels active foreground work, the Agent MUST
			// send the final updates for that work and the idle `state_update` with
			// `stopReason: "cancelled"` before responding successfully to `session/close`."
			if session := sessionOf(params); session != "" {
				if err := e.foreground.close(ctx, session); err != nil {
					return nil, err
				}
			}
			return call(ctx)
		}
	}
	if rule := e.rule; rule != nil && method == rule.Method {
		return e.turn(ctx, rule, params, func(ctx context.Context) (any, error) { return e.answered(ctx, method, call) })
	}
	return e.answered(ctx, method, call)
}

// answered is call's outcome; for a request with a cancel outcome, a call that fails once the
// peer cancelled it ($/cancel_request) is answered with the outcome, not -32800
// (RequestPermissionOutcome: "the client answers a request the agent cancels with
// `$/cancel_request` with this outcome"); a call that returns a result anyway is answered with it.
func (e *BehaviourEngine) answered(ctx context.Context, method string, call func(context.Context) (any, error)) (any, error) {
	result, err := call(ctx)
	if err == nil || !errors.Is(context.Cause(ctx), ErrCancelledByPeer) {
		return result, err
	}
	for _, outcome := range e.behaviour.CancelOutcomes {
		if outcome.Method == method {
			return json.RawMessage(outcome.Result), nil
		}
	}
	return result, err
}

// initialize answers the negotiation request: "the highest protocol version supported by the
// agent that is at or below the version requested by the client" (checked before the params
// were decoded). The result's version is the SDK's to say, never the handler's echo of the
// request. Each capability whose required methods the handler serves (by its own methods or
// the SDK's, such as session/list from a SessionStore) is set in the result where the handler
// left its path unset (a value the handler wrote, false and null included, is kept).
func (e *BehaviourEngine) initialize(ctx context.Context, call func(context.Context) (any, error)) (any, error) {
	result, err := call(ctx)
	if err != nil {
		return nil, err
	}
	negotiation := e.behaviour.Negotiation
	answer, err := withMember(result, negotiation.Field, negotiation.Version)
	if e.serves != nil {
		for _, capability := range Advertised(*e.behaviour, e.serves) {
			if err == nil {
				answer, err = withCapability(answer, capability.Path, capability.Value)
			}
		}
	}
	return answer, err
}

// cancelled acts on a cancel notification this side receives: v1's turn rule ("the Agent MUST
// respond to the original `session/prompt` request with the `cancelled` stop reason") ends the
// session's turns, v2's lifecycle (CancelSessionNotification: "cancel a session's foreground work
// and its prompts not yet inserted") its foreground work and held prompts.
func (e *BehaviourEngine) cancelled(method string, params json.RawMessage) {
	session := sessionOf(params)
	if rule := e.rule; rule != nil && rule.Received && method == rule.Cancel {
		e.turns.cancel(turnKey{rule.Method, session})
	}
	if life := e.insertion; life != nil && e.foreground != nil && method == life.Cancel && session != "" {
		e.foreground.cancel(session)
	}
}

// Send sends a notification on conn; where this side sends its turn rule's cancel, the side's
// pending turns of the session are answered first with the rule's result ("the Client MUST
// respond to all pending `session/request_permission` requests with the `cancelled` outcome").
// Each edition's generated peers send their notifications with it; a session/update of an agent
// whose engine keeps its sessions (KeepSessions) is recorded in the store first.
func Send(conn *Connection, method string, params any) error {
	if e := engineOf(conn); e != nil && e.rule != nil && !e.rule.Received && method == e.rule.Cancel {
		if raw, err := paramsJSON(params); err == nil {
			e.turns.cancel(turnKey{e.rule.Method, sessionOf(raw)})
		}
	}
	if e := engineOf(conn); e != nil && e.replay != nil && method == methodUpdate {
		raw, err := paramsJSON(params) // encoded once: the frame sent and the update recorded
		if err != nil {
			return err
		}
		if e.beforeRecord(raw) { // a replay of the session holds it; what is not history is not recorded
			e.replay.record(raw)
		}
		return conn.notifyEncoded(method, raw)
	}
	return conn.Notify(method, params)
}

// clientState is the connection's client state under table (made on first use).
func (e *BehaviourEngine) clientState(table *StateTable) *ClientState {
	e.mu.Lock()
	defer e.mu.Unlock()
	state := e.states[table]
	if state == nil {
		if e.states == nil {
			e.states = map[*StateTable]*ClientState{}
		}
		state = NewClientState(table)
		e.states[table] = state
	}
	return state
}

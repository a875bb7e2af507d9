package acp

import (
	"strings"
	"sync"
)

// Layer: typed layer (pure data; the generated client handler and agent peer feed it, see
// client_state_feed.go, and the v2 session view exposes it). The state a client keeps of an
// agent connection: each session's SessionState and the agent's, fed with state messages and
// routed by the edition's generated state table (<edition>/state.go, rendered from the schema's
// x-state / x-scope annotations, or v1's rule table). A state message is one shape for every
// message that changes state: {"method": …, "params": …} for a request or notification,
// {"method": …, "params": <the request's>, "result": …} for a response. The table says where
// each annotated message is and what it does; nothing here knows a particular update.
//
// Unknown stays safe: a message of a method the table covers whose variant no annotation names
// (or an effect of an action this runtime does not know) is kept in the state's log and changes
// nothing else; a malformed one (a path it needs is absent, or of the wrong type) is logged too
// and reported once per kind with the JSON pointer of what is wrong, and changes nothing: a
// message is checked whole before anything changes. Apply never panics on a message.

// StateEffect is one effect of an annotation (x-state), as the generated table gives it; ""
// stands for a path or property the annotation does not name.
type StateEffect struct {
	Scope  string // "session" or "agent"
	Action string // upsert, append, replace, remove
	Target string
	ID     string // the dotted path of the entry's id: the target is a collection
	Field  string // the entry's field the action applies to
	Value  string // the dotted path of the value (else the message without its union tag)
	// Fallback "turn": without the id path, the entry of the session's current prompt turn (v1).
	Fallback string
	// Encoding "base64": the value is encoded bytes; an append joins the bytes, not the text.
	Encoding string
}

// StateEntry is one annotation where a client meets it (acp_codegen/targets/state_table.py).
type StateEntry struct {
	Method  string
	Part    string   // "params" (a request or notification) or "result" (a response)
	At      string   // the field of the params holding the annotated union ("": the part itself)
	Tag     string   // the union's tag property, left out of the values the message gives
	Variant string   // the tag's value ("": the part itself is annotated)
	Session []string // the dotted paths that may hold the session id, the first string wins
	Effects []StateEffect
	Pointer string // the annotation's JSON pointer in the schema
	Rule    string // "": the schema's own x-state; else the rule-table entry (v1)
}

// StateTable is one edition's client-state table (generated: <edition>.StateTable).
type StateTable struct {
	Meta    MetaPolicy // the _meta policy of every upsert: patch (v2), merge (v1) or replace
	Turn    string     // the request that starts a prompt turn, where an effect is keyed by it
	Entries []StateEntry

	once   sync.Once
	routes map[routeKey]*stateRoute
}

type routeKey struct{ method, part string }

// stateRoute is the entries of one (method, part), by variant.
type stateRoute struct {
	at       []string
	tag      string
	session  [][]string
	base     string // the JSON pointer of the annotated part (/params/update)
	self     *compiledEntry
	variants map[string]*compiledEntry
}

// compiledEntry is a table entry made ready to carry out: its paths split, whether this runtime
// knows all its effects, the kind its problems are reported under.
type compiledEntry struct {
	effects []*compiledEffect
	known   bool
	kind    string
}

type compiledEffect struct {
	StateEffect
	id, field, value []string
	idUnderValue     bool // the id is read from inside the value (subject.toolCall.toolCallId)
}

func (t *StateTable) compiled() map[routeKey]*stateRoute {
	t.once.Do(func() {
		t.routes = map[routeKey]*stateRoute{}
		for _, entry := range t.Entries {
			key := routeKey{entry.Method, entry.Part}
			route := t.routes[key]
			if route == nil {
				route = &stateRoute{at: split(entry.At), tag: entry.Tag, base: pointerOf("", []string{entry.Part}), variants: map[string]*compiledEntry{}}
				route.base = pointerOf(route.base, route.at)
				for _, path := range entry.Session {
					route.session = append(route.session, split(path))
				}
				t.routes[key] = route
			}
			compiled := &compiledEntry{known: true, kind: entry.Method}
			if entry.Variant != "" {
				compiled.kind += " " + entry.Variant
			}
			for _, effect := range entry.Effects {
				e := &compiledEffect{StateEffect: effect, id: split(effect.ID), field: split(effect.Field), value: split(effect.Value)}
				e.idUnderValue = e.id != nil && e.value != nil && len(e.id) > len(e.value) && strings.HasPrefix(effect.ID, effect.Value+".")
				switch {
				case effect.Scope != "session" && effect.Scope != "agent":
					compiled.known = false
				case effect.Action != StateUpsert && effect.Action != StateAppend && effect.Action != StateReplace && effect.Action != StateRemove:
					compiled.known = false
				}
				compiled.effects = append(compiled.effects, e)
			}
			if entry.Variant == "" {
				route.self = compiled
			} else {
				route.variants[entry.Variant] = compiled
			}
		}
	})
	return t.routes
}

func split(path string) []string {
	if path == "" {
		return nil
	}
	return strings.Split(path, ".")
}

// StateChange is what one applied effect changed: the target, and the entry's id (nil: the
// target itself).
type StateChange struct {
	Scope   string  `json:"scope"`
	Session *string `json:"session"` // the message's session (nil: it names none)
	Target  string  `json:"target"`
	ID      *string `json:"id"`
	Action  string  `json:"action"`
}

// StateApplied is what one message did: its session (nil: it names none), the changes in effect
// order, whether it was kept in a log instead (unknown or malformed), and the problem it raised
// (a kind not reported before).
type StateApplied struct {
	Session *string
	Changes []StateChange
	Logged  bool
	Problem *StateProblem
}

// ClientState is every session's state and the agent's, from the state messages it is given,
// in order. Safe for concurrent use.
type ClientState struct {
	table     *StateTable
	mu        sync.Mutex
	agent     *SessionState
	sessions  map[string]*SessionState
	listeners []*stateListener
}

type stateListener struct {
	call    func(StateApplied)
	session string
	all     bool
}

// NewClientState is an empty client state carrying out table.
func NewClientState(table *StateTable) *ClientState {
	c := &ClientState{table: table, sessions: map[string]*SessionState{}}
	c.agent = newSessionState(&c.mu, table.Meta)
	return c
}

// Agent is the agent-scoped state (authStatus), and the log of messages naming no session.
func (c *ClientState) Agent() *SessionState {
	return c.agent
}

// Session is the state of session id (made on first use).
func (c *ClientState) Session(id string) *SessionState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session(id)
}

func (c *ClientState) session(id string) *SessionState {
	state := c.sessions[id]
	if state == nil {
		state = newSessionState(&c.mu, c.table.Meta)
		c.sessions[id] = state
	}
	return state
}

// Snapshot is {"agent": …, "sessions": {id: …}}, each as SessionState.Snapshot gives it.
func (c *ClientState) Snapshot() map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	sessions := make(map[string]any, len(c.sessions))
	for id, state := range c.sessions {
		sessions[id] = state.snapshot()
	}
	return map[string]any{"agent": c.agent.snapshot(), "sessions": sessions}
}

// OnStateChange calls listener with what each message applied (or logged) did, after the state
// changed, of session only when one is given; it returns the function that unsubscribes it. A
// listener that panics is recovered: it never reaches the connection.
func (c *ClientState) OnStateChange(listener func(StateApplied), session ...string) (cancel func()) {
	item := &stateListener{call: listener, all: len(session) == 0}
	if !item.all {
		item.session = session[0]
	}
	c.mu.Lock()
	c.listeners = append(c.listeners, item)
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, found := range c.listeners {
			if found == item {
				c.listeners = append(c.listeners[:i:i], c.listeners[i+1:]...)
				return
			}
		}
	}
}

// Feed is Apply, then the listeners told (outside the lock, in subscription order).
func (c *ClientState) Feed(message map[string]any) StateApplied {
	applied, listeners := c.apply(message, true)
	if len(applied.Changes) == 0 && !applied.Logged {
		return applied
	}
	for _, listener := range listeners {
		if listener.all || (applied.Session != nil && *applied.Session == listener.session) {
			tell(listener.call, applied)
		}
	}
	return applied
}

func tell(listener func(StateApplied), applied StateApplied) {
	defer func() { _ = recover() }() // a listener's panic never reaches the connection
	listener(applied)
}

// Apply carries out what message (a state message) does; it never panics on its content.
func (c *ClientState) Apply(message map[string]any) StateApplied {
	applied, _ := c.apply(message, false)
	return applied
}

func (c *ClientState) apply(message map[string]any, listeners bool) (applied StateApplied, told []*stateListener) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer func() {
		if recover() != nil { // not reached by any message: a last guard for the connection
			applied, told = StateApplied{}, nil
		}
	}()
	applied = c.applyLocked(message)
	if !listeners || len(c.listeners) == 0 {
		return applied, nil
	}
	return applied, append([]*stateListener(nil), c.listeners...)
}

func (c *ClientState) applyLocked(message map[string]any) StateApplied {
	method, _ := message["method"].(string)
	part := "params"
	if _, ok := message["result"]; ok {
		part = "result"
	}
	route := c.table.compiled()[routeKey{method, part}]
	if route == nil {
		if method != "" && method == c.table.Turn {
			return c.turn(message)
		}
		return StateApplied{}
	}
	payload := message[part]
	for _, key := range route.at {
		object, _ := payload.(map[string]any)
		payload = object[key] // nil when not an object
	}
	var session *string
	for _, path := range route.session {
		if found, ok := read(message, path); ok {
			if id, isString := found.(string); isString {
				session = &id
				break
			}
		}
	}
	compiled := route.self
	if object, ok := payload.(map[string]any); route.tag != "" && ok {
		switch variant := object[route.tag].(type) {
		case string:
			compiled = route.variants[variant]
		case nil:
		default:
			compiled = nil
		}
	}
	if compiled == nil || !compiled.known {
		c.holder(session).log = append(c.holder(session).log, message)
		return StateApplied{Session: session, Logged: true}
	}
	return c.carryOut(message, route, compiled, session, payload)
}

// turn is the request that starts a prompt turn (v1's session/prompt): the session's turn
// advances, nothing else changes.
func (c *ClientState) turn(message map[string]any) StateApplied {
	found, _ := read(message, []string{"params", "sessionId"})
	id, ok := found.(string)
	if !ok {
		return StateApplied{}
	}
	if _, answered := message["result"]; !answered {
		c.session(id).turn++
	}
	return StateApplied{Session: &id}
}

type heldStep struct {
	state *SessionState
	step  stateStep
}

// carryOut checks every effect of the message, then commits them in order.
func (c *ClientState) carryOut(message map[string]any, route *stateRoute, compiled *compiledEntry, session *string, payload any) StateApplied {
	var buffer [2]heldStep // room for the steps of most messages (one), on the stack
	steps := buffer[:0]
	var holder *SessionState
	for _, effect := range compiled.effects {
		switch {
		case effect.Scope == "agent":
			holder = c.agent
		case session == nil:
			where := ""
			if len(route.session) > 0 {
				where = pointerOf("", route.session[0])
			}
			return c.malformed(message, compiled.kind, session, holder, &malformed{where, stateMissing})
		default:
			holder = c.session(*session)
		}
		step, applies, problem := holder.step(effect, payload, route.base, route.tag)
		if problem != nil {
			return c.malformed(message, compiled.kind, session, holder, problem)
		}
		if applies {
			steps = append(steps, heldStep{holder, step})
		}
	}
	applied := StateApplied{Session: session, Changes: make([]StateChange, 0, len(steps))}
	for _, held := range steps {
		if held.state.commit(held.step) {
			effect := held.step.effect
			change := StateChange{Scope: effect.Scope, Session: session, Target: effect.Target, Action: effect.Action}
			if held.step.keyed {
				key := held.step.key
				change.ID = &key
			}
			applied.Changes = append(applied.Changes, change)
		}
	}
	return applied
}

func (c *ClientState) malformed(message map[string]any, kind string, session *string, holder *SessionState, problem *malformed) StateApplied {
	if holder == nil {
		holder = c.holder(session)
	}
	holder.log = append(holder.log, message)
	applied := StateApplied{Session: session, Logged: true}
	reported := StateProblem{Kind: kind, Pointer: problem.pointer, Reason: problem.reason}
	if holder.report(reported) {
		applied.Problem = &reported
	}
	return applied
}

func (c *ClientState) holder(session *string) *SessionState {
	if session == nil {
		return c.agent
	}
	return c.session(*session)
}

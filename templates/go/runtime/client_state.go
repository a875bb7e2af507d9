package acp

import "sync"

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
	unseen    map[string]*SessionState // handed out by Session, no message touched them yet
	listeners []*stateListener
}

type stateListener struct {
	call    func(StateApplied)
	session string
	all     bool
}

// NewClientState is an empty client state carrying out table.
func NewClientState(table *StateTable) *ClientState {
	c := &ClientState{table: table, sessions: map[string]*SessionState{}, unseen: map[string]*SessionState{}}
	c.agent = newSessionState(&c.mu, table.Meta)
	return c
}

// Agent is the agent-scoped state (authStatus), and the log of messages naming no session.
func (c *ClientState) Agent() *SessionState {
	return c.agent
}

// Session is the state of session id; reading it makes nothing appear: a session no message
// touched yet reads empty and is not in the snapshot until one does.
func (c *ClientState) Session(id string) *SessionState {
	c.mu.Lock()
	defer c.mu.Unlock()
	state := c.candidate(id)
	if c.sessions[id] == nil {
		c.unseen[id] = state
	}
	return state
}

// candidate is the state a message about session id would change, not made to appear yet.
func (c *ClientState) candidate(id string) *SessionState {
	if state := c.sessions[id]; state != nil {
		return state
	}
	if state := c.unseen[id]; state != nil {
		return state
	}
	return newSessionState(&c.mu, c.table.Meta)
}

// touched is state (a candidate of session id) made to appear: a message changed, logged or
// turned it.
func (c *ClientState) touched(id string, state *SessionState) *SessionState {
	if c.sessions[id] == nil {
		c.sessions[id] = state
		delete(c.unseen, id)
	}
	return state
}

// session is the state of session id, made to appear (a message touched it).
func (c *ClientState) session(id string) *SessionState {
	return c.touched(id, c.candidate(id))
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
	_, answered := message["result"]
	if answered {
		part = "result"
	}
	route := c.table.route(method, answered)
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
	id, named := "", false
	for _, path := range route.session {
		if found, ok := read(message, path); ok {
			if id, named = found.(string); named {
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
		session := sessionRef(id, named)
		c.holder(session).log = append(c.holder(session).log, kept(message))
		return StateApplied{Session: session, Logged: true}
	}
	return c.carryOut(message, route, compiled, id, named, payload)
}

// kept is a message as a log keeps it: a copy of its top level holding the message's own values
// (which the state never changes, and hands out only as copies). The state keeps no map of the
// caller's, so a caller's message map need not outlive Apply: Go keeps it off the heap.
func kept(message map[string]any) map[string]any {
	out := make(map[string]any, len(message))
	for name, value := range message {
		out[name] = value
	}
	return out
}

// sessionRef is the session id a StateApplied names (nil: the message names none), a string of
// its own: what Apply hands out is the caller's.
func sessionRef(id string, named bool) *string {
	if !named {
		return nil
	}
	return &id
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

// appliedOne is what an applied message hands out, made in one allocation: the session id and
// the first change's entry id its StateApplied points to, and the array its changes are in when
// it has one (most messages: one effect). Apply runs once per update a client receives, and each
// allocation costs it time and the collector work. Nothing else holds these: the caller may keep
// or change them.
type appliedOne struct {
	session string
	key     string
	changes [1]StateChange
}

// carryOut checks every effect of the message, then commits them in order.
func (c *ClientState) carryOut(message map[string]any, route *stateRoute, compiled *compiledEntry, id string, named bool, payload any) StateApplied {
	var buffer [2]heldStep // room for the steps of most messages (one), on the stack
	steps := buffer[:0]
	var holder, own *SessionState // own: the session's state, made to appear once touched
	fresh := false
	if named {
		if own = c.sessions[id]; own == nil {
			own, fresh = c.candidate(id), true
		}
	}
	for _, effect := range compiled.effects {
		switch {
		case effect.Scope == "agent":
			holder = c.agent
		case !named:
			return c.malformed(message, compiled.kind, nil, holder, noSession(message, route))
		default:
			holder = own
		}
		steps = append(steps, heldStep{state: holder}) // checked in place: a step is large
		held := &steps[len(steps)-1]
		applies, problem := holder.step(&held.step, effect, payload, route.base, route.tag)
		if problem != nil {
			if holder == own {
				c.touched(id, own)
			}
			return c.malformed(message, compiled.kind, sessionRef(id, named), holder, problem)
		}
		if !applies {
			steps = steps[:len(steps)-1]
		} else if len(compiled.effects) > 1 {
			// What step looked up may be changed by an earlier effect's commit: commit looks again.
			held.step.looked = false
		}
	}
	for i := 0; fresh && i < len(steps); i++ {
		if steps[i].state == own {
			c.touched(id, own) // a step of the session's: the message changes it
			break
		}
	}
	out := &appliedOne{session: id}
	applied := StateApplied{Changes: out.changes[:0]}
	if named {
		applied.Session = &out.session
	}
	if len(steps) > 1 {
		applied.Changes = make([]StateChange, 0, len(steps))
	}
	keyHeld := false // out.key is the first keyed change's id; a later one has its own
	for i := range steps {
		held := &steps[i]
		if !held.state.commit(&held.step) {
			continue
		}
		effect := held.step.effect
		change := StateChange{Scope: effect.Scope, Session: applied.Session, Target: effect.Target, Action: effect.Action}
		switch {
		case !held.step.keyed:
		case !keyHeld:
			out.key, change.ID, keyHeld = held.step.key, &out.key, true
		default:
			key := held.step.key
			change.ID = &key
		}
		applied.Changes = append(applied.Changes, change)
	}
	return applied
}

func (c *ClientState) malformed(message map[string]any, kind string, session *string, holder *SessionState, problem *malformed) StateApplied {
	if holder == nil {
		holder = c.holder(session)
	}
	holder.log = append(holder.log, kept(message))
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

// noSession is a session effect's problem when no session id is named: missing where no session
// path holds a value, type at the first that holds one that is not a string.
func noSession(message map[string]any, route *stateRoute) *malformed {
	for _, path := range route.session {
		if _, ok := read(message, path); ok {
			return &malformed{pointerOf("", path), stateWrongType}
		}
	}
	where := ""
	if len(route.session) > 0 {
		where = pointerOf("", route.session[0])
	}
	return &malformed{where, stateMissing}
}

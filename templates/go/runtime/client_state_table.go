package acp

import (
	"strings"
	"sync"
)

// Layer: typed layer (pure data). An edition's client-state table as the generated code gives
// it (<edition>/state.go), and the same table compiled once into the routes ClientState carries
// out (client_state.go): by method, then by the part of the message, then by variant.

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
	routes map[string]*methodRoutes
}

// methodRoutes is one method's routes: of its params (a request or notification), and of its
// result (a response). Keyed by the method alone, a message's route is one lookup of a string.
type methodRoutes struct {
	params, result *stateRoute
}

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

// route is the route of method's result (answered) or params; nil where the table has none.
func (t *StateTable) route(method string, answered bool) *stateRoute {
	t.once.Do(t.compile)
	routes := t.routes[method]
	switch {
	case routes == nil:
		return nil
	case answered:
		return routes.result
	}
	return routes.params
}

func (t *StateTable) compile() {
	t.routes = map[string]*methodRoutes{}
	for _, entry := range t.Entries {
		// A state message is {method, params} or {method, params, result}: no other part is met.
		if entry.Part != "params" && entry.Part != "result" {
			continue
		}
		routes := t.routes[entry.Method]
		if routes == nil {
			routes = &methodRoutes{}
			t.routes[entry.Method] = routes
		}
		slot := &routes.params
		if entry.Part == "result" {
			slot = &routes.result
		}
		route := *slot
		if route == nil {
			route = &stateRoute{at: split(entry.At), tag: entry.Tag, base: pointerOf("", []string{entry.Part}), variants: map[string]*compiledEntry{}}
			route.base = pointerOf(route.base, route.at)
			for _, path := range entry.Session {
				route.session = append(route.session, split(path))
			}
			*slot = route
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
}

func split(path string) []string {
	if path == "" {
		return nil
	}
	return strings.Split(path, ".")
}

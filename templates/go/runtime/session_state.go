package acp

import (
	"strconv"
	"sync"
)

// Layer: typed layer (pure data). The state a client keeps of one session (or of the agent):
// the four actions of the schema's x-state annotations, carried out generically. ClientState
// routes each state message here by the edition's generated state table (<edition>/state.go).
// Nothing here knows a particular update: an effect names its action, its target, the dotted
// paths of the message holding the target's id and the value, and the target's field. The same
// reducer as the Python and TypeScript runtimes'; tests/corpus/state/ is the corpus all three
// replay (its README.md states the rules).
//
//   - upsert merges the message's fields into the entry: "omitted fields leave the existing tool
//     call value unchanged, `null` clears or unsets the value, and concrete values replace the
//     previous value" (ToolCallUpdate); "A concrete `_meta` object instead patches the stored
//     metadata by top-level key" (v2; the edition's _meta policy, v1 merges).
//   - append extends the entry's field: one item onto a list ("Tool-call content chunks append
//     one `ToolCallContent` item to the current content", ToolCallContentChunk), or a string
//     onto a string; base64 strings (a terminal's output.data) join their bytes. An entry a chunk
//     names before its upsert is made.
//   - replace sets the target, or its entry, or its field, to the value (the message itself
//     without its union tag when no value is named); an absent value removes it ("Omitted or
//     empty means no config options are advertised", NewSessionResponse.configOptions).
//   - remove deletes the entry (an unknown id changes nothing), or the target.
//
// Values are decoded JSON (state_values.go): the state never changes a message's values, and
// what it hands out is a deep copy.

// The actions of an x-state effect, and why a message is malformed: a path it must hold is
// absent, or holds a value of a type the action cannot use (an id that is not a string, a field
// that is neither a list nor a string).
const (
	StateUpsert  = "upsert"
	StateAppend  = "append"
	StateReplace = "replace"
	StateRemove  = "remove"

	stateMissing   = "missing"
	stateWrongType = "type"
	stateTurn      = "turn"
	stateBase64    = "base64"
	stateMetaKey   = "_meta"
)

// StateProblem is a malformed message's problem, reported once per kind ("<method> <variant>"):
// the JSON pointer into the state message of what is missing or of the wrong type.
type StateProblem struct {
	Kind    string `json:"kind"`
	Pointer string `json:"pointer"`
	Reason  string `json:"reason"`
}

// StateItem is one entry of a collection target: its id and its value.
type StateItem struct {
	ID    string `json:"id"`
	Value any    `json:"value"`
}

// entries is a collection target: entry id → entry, in arrival order (an entry keeps its place
// when replaced).
type entries struct {
	order  []string
	values map[string]any
}

func (e *entries) set(key string, value any) {
	if _, ok := e.values[key]; !ok {
		e.order = append(e.order, key)
	}
	e.values[key] = value
}

func (e *entries) remove(key string) bool {
	if _, ok := e.values[key]; !ok {
		return false
	}
	delete(e.values, key)
	for i, found := range e.order {
		if found == key {
			e.order = append(e.order[:i:i], e.order[i+1:]...)
			break
		}
	}
	return true
}

// SessionState is the state of one scope: a session's (or the agent's, for agent-scoped
// effects). Its methods are safe for concurrent use (the ClientState's lock); what they return is
// a copy the caller may keep or change.
type SessionState struct {
	mu       *sync.Mutex // its ClientState's
	meta     MetaPolicy
	targets  map[string]any // a target's value, or *entries
	reported map[string]bool
	log      []any
	problems []StateProblem
	turn     int // the prompt turns started so far (v1's chunks without messageId join its message)
}

func newSessionState(mu *sync.Mutex, meta MetaPolicy) *SessionState {
	return &SessionState{mu: mu, meta: meta, targets: map[string]any{}, reported: map[string]bool{}}
}

// Get is the value of a target that is not a collection (false: never set, or a collection).
func (s *SessionState) Get(target string) (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	found, ok := s.targets[target]
	if _, collection := found.(*entries); !ok || collection {
		return nil, false
	}
	return copyJSON(found), true
}

// Entries is a collection target's entries in arrival order (empty where it has none).
func (s *SessionState) Entries(target string) []StateItem {
	s.mu.Lock()
	defer s.mu.Unlock()
	found, _ := s.targets[target].(*entries)
	if found == nil {
		return []StateItem{}
	}
	items := make([]StateItem, 0, len(found.order))
	for _, key := range found.order {
		items = append(items, StateItem{ID: key, Value: copyJSON(found.values[key])})
	}
	return items
}

// Log is the messages kept without being applied, in order: a variant no annotation covers, a
// variant the schema does not know, an effect this runtime cannot carry out, a malformed message.
func (s *SessionState) Log() []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return copyJSON(s.log).([]any)
}

// Problems is one problem per kind of malformed message, the first of each.
func (s *SessionState) Problems() []StateProblem {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]StateProblem{}, s.problems...)
}

// Snapshot is the state as plain JSON: {"targets": …, "log": […], "problems": […]}, a
// collection as [{"id", "value"}] in arrival order; a copy the caller may keep or change.
func (s *SessionState) Snapshot() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshot()
}

func (s *SessionState) snapshot() map[string]any {
	targets := make(map[string]any, len(s.targets))
	for name, value := range s.targets {
		if collection, ok := value.(*entries); ok {
			items := make([]any, 0, len(collection.order))
			for _, key := range collection.order {
				items = append(items, map[string]any{"id": key, "value": copyJSON(collection.values[key])})
			}
			targets[name] = items
		} else {
			targets[name] = copyJSON(value)
		}
	}
	problems := make([]any, 0, len(s.problems))
	for _, p := range s.problems {
		problems = append(problems, map[string]any{"kind": p.Kind, "pointer": p.Pointer, "reason": p.Reason})
	}
	return map[string]any{"targets": targets, "log": copyJSON(s.log), "problems": problems}
}

// report records a malformed message's problem, once per kind; whether it is new.
func (s *SessionState) report(problem StateProblem) bool {
	if s.reported[problem.Kind] {
		return false
	}
	s.reported[problem.Kind] = true
	s.problems = append(s.problems, problem)
	return true
}

// malformed is a message lacking a path an effect needs (pointer, into the state message).
type malformed struct {
	pointer, reason string
}

// stateStep is one effect checked and made ready to commit: its key ("" with keyed false: the
// target itself) and its value (present false: absent).
type stateStep struct {
	effect  *compiledEffect
	key     string
	keyed   bool
	value   any
	present bool
	skip    string // an upsert's value is the message without this member (its union tag)
	// An append's check looked up the stored entry and its field: commit uses them instead of
	// looking again, unless ClientState clears looked (another effect may commit in between).
	looked, found, currentOK bool
	entry, current           any
}

// step reads effect from payload (at base in the state message) into step: false when it does not
// apply (the object holding its value lacks it: a permission request whose subject is not a tool
// call; a value absent at the top, plan_update's plan, is malformed), a *malformed when a path it
// needs is absent or of the wrong type. Changes nothing.
func (s *SessionState) step(step *stateStep, effect *compiledEffect, payload any, base, tag string) (bool, *malformed) {
	*step = stateStep{effect: effect}
	if effect.idUnderValue {
		if found, ok := read(payload, effect.value); !ok || found == nil {
			if n := len(effect.value); n > 1 {
				// a variant without it (a permission request not about a tool call), or an
				// optional holder left out (v2's subject): the effect does not apply
				if parent, present := read(payload, effect.value[:n-1]); !present || isObjectValue(parent) {
					return false, nil
				}
			}
			reason := stateWrongType
			if !ok {
				reason = stateMissing
			}
			return false, &malformed{pointerOf(base, effect.value), reason}
		}
	}
	if effect.id != nil {
		found, ok := read(payload, effect.id)
		key, isString := found.(string)
		switch {
		case isString:
		case (!ok || found == nil) && effect.Fallback == stateTurn:
			key = "turn:" + strconv.Itoa(s.turn)
		case !ok:
			return false, &malformed{pointerOf(base, effect.id), stateMissing}
		default:
			return false, &malformed{pointerOf(base, effect.id), stateWrongType}
		}
		step.key, step.keyed = key, true
	}
	switch object, isObject := asObject(payload); {
	case effect.value != nil:
		step.value, step.present = read(payload, effect.value)
	case tag != "" && isObject && effect.Action == StateUpsert:
		step.value, step.present, step.skip = object, true, tag // merged without the tag
	case tag != "" && isObject:
		untagged := make(ownedObject, len(object))
		for name, member := range object {
			if name != tag {
				untagged[name] = member
			}
		}
		step.value, step.present = untagged, true
	default:
		step.value, step.present = payload, true
	}
	switch effect.Action {
	case StateAppend:
		if !step.present {
			return false, &malformed{pointerOf(base, effect.value), stateMissing}
		}
		step.entry, step.found = s.lookup(effect.Target, step.key, step.keyed)
		step.current, step.currentOK = read(step.entry, effect.field)
		if !appendable(step.current, step.currentOK, step.value, effect.Encoding) {
			return false, &malformed{pointerOf(base, effect.value), stateWrongType}
		}
		step.looked = true
	case StateUpsert:
		if _, isObject := asObject(step.value); !isObject || !step.present {
			return false, &malformed{pointerOf(base, effect.value), stateWrongType}
		}
	}
	return true, nil
}

// commit carries out a checked step; whether anything changed.
func (s *SessionState) commit(step *stateStep) bool {
	effect := step.effect
	if effect.Action == StateRemove {
		return s.remove(effect.Target, step.key, step.keyed)
	}
	entry, found := step.entry, step.found
	if !step.looked {
		entry, found = s.lookup(effect.Target, step.key, step.keyed)
	}
	var value any
	present := true
	switch effect.Action {
	case StateAppend:
		current, ok := step.current, step.currentOK
		if !step.looked {
			current, ok = read(entry, effect.field)
		}
		joined := appended(current, ok, step.value, effect.Encoding)
		if _, inPlace := current.(*ownedList); inPlace && found {
			return true // the state's own list grew: nothing holding it changes
		}
		value = written(entry, effect.field, joined, true)
		if !found && step.keyed && effect.id != nil { // a chunk before its entry's upsert
			value = written(value, effect.id, step.key, true)
		}
	case StateUpsert:
		fields, _ := asObject(step.value)
		value = s.upsert(entry, effect.field, fields, step.skip)
	default: // replace
		if effect.field != nil {
			value = written(entry, effect.field, step.value, step.present)
		} else {
			value, present = step.value, step.present
		}
	}
	s.store(effect.Target, step.key, step.keyed, value, present)
	return true
}

func (s *SessionState) lookup(target, key string, keyed bool) (any, bool) {
	found, ok := s.targets[target]
	collection, isCollection := found.(*entries)
	if !keyed {
		return found, ok && !isCollection
	}
	if !isCollection {
		return nil, false
	}
	value, ok := collection.values[key]
	return value, ok
}

func (s *SessionState) store(target, key string, keyed bool, value any, present bool) {
	if !keyed {
		if present {
			s.targets[target] = value
		} else {
			delete(s.targets, target)
		}
		return
	}
	collection, ok := s.targets[target].(*entries)
	if !ok {
		collection = &entries{values: map[string]any{}}
		s.targets[target] = collection
	}
	if present {
		collection.set(key, value)
	} else {
		collection.remove(key)
	}
}

func (s *SessionState) remove(target, key string, keyed bool) bool {
	found, ok := s.targets[target]
	collection, isCollection := found.(*entries)
	if !keyed {
		delete(s.targets, target)
		return ok
	}
	return isCollection && collection.remove(key)
}

func (s *SessionState) upsert(entry any, field []string, fields map[string]any, skip string) any {
	inner := entry
	if field != nil {
		inner, _ = read(entry, field)
	}
	merged := owned(inner)
	for name, value := range fields {
		given, isObject := asObject(value)
		switch {
		case name == skip:
		case value == nil:
			delete(merged, name) // "`null` clears or unsets the value"
		case name == stateMetaKey && isObject:
			merged[name] = s.metaOf(merged[name], given)
		default:
			merged[name] = value
		}
	}
	if field == nil {
		return merged
	}
	return written(entry, field, merged, true)
}

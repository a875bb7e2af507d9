package acp

// Layer: typed layer (the shapes of an edition's Behaviour data and the rules read from it).

import (
	"encoding/json"
	"errors"
)

// Behaviour is what an edition's SDK does beyond its types, as data the runtime reads (each
// edition's generated Behaviour, rendered from the IR's rules and checked against its schema),
// carried out on each connection by one BehaviourEngine: no code asks which edition it speaks.
type Behaviour struct {
	Negotiation Negotiation
	// Lifecycle is the prompt turn, or nil when the edition has none.
	Lifecycle      *PromptLifecycle
	Capabilities   []Capability
	Meta           []MetaRule
	CancelOutcomes []CancelOutcome
	TargetCancels  []TargetCancel
	// TurnRules are ACP v1's feature-level cancellation, one per request it applies to: entries
	// of the same table as the lifecycle, carried out by the same engine.
	TurnRules []TurnRule
	// Resume is how a session store answers session/resume (session_resume.go); nil: it does not.
	Resume *ResumeReplay
}

// Negotiation is version negotiation in initialize: the agent answers the highest version it
// implements at or below the one asked.
type Negotiation struct {
	Method string
	// Field holds the version in the params and the result (protocolVersion).
	Field   string
	Version int
	// Unsupported is the error code when no version fits; 0: the edition defines none, and
	// the agent answers its own version.
	Unsupported int
	Spec        string
}

// PromptAnswer says when the prompt request is answered.
type PromptAnswer string

const (
	// Completion: the answer ends the turn, with its stop reason (v1).
	Completion PromptAnswer = "completion"
	// Insertion: the answer acknowledges the inserted message; state updates report the work
	// (v2).
	Insertion PromptAnswer = "insertion"
)

// PromptLifecycle is the prompt turn of an edition: which request, when it is answered, what
// cancels and closes it, and its stop reasons.
type PromptLifecycle struct {
	Prompt string
	Answer PromptAnswer
	Cancel string
	// Close is the request that ends a session ("" when the edition has none).
	Close string
	// MessageID is the prompt result's field holding the inserted message's id (Insertion).
	MessageID string
	// States says how work is reported (Insertion), or nil.
	States    *StateUpdates
	EndTurn   string
	Cancelled string
	// Failed is the stop reason of work that failed ("": failures are errors).
	Failed string
	Spec   string
	// RetryKey is the prompt request's field naming one submission across attempts
	// (Insertion; v2's idempotencyKey): a retry carrying the key of an insertion the agent
	// recorded is answered with that insertion's message id, and inserts nothing ("" when the
	// edition has none).
	RetryKey string
}

// StateUpdates is how the agent reports a session's foreground state (v2 state_update).
type StateUpdates struct {
	Notification   string
	UpdateTag      string
	UpdateValue    string
	StateTag       string
	Running        string
	Idle           string
	RequiresAction string
	StopReason     string
	UserMessage    string
	AgentChunk     string
	// UserChunk is a user message chunk: one with the prompt's message id echoes it too.
	UserChunk string
	// UserAction are the work's requests that wait on the user (permissions, elicitations):
	// while one is pending the state is RequiresAction, Running again once none is.
	UserAction []string
}

// Capability is where an agent's initialize result advertises an optional method: the wire
// keys from the result down, and the value that says "supported". It is advertised only when the
// agent serves every method of Requires (v2's capabilities.session promises the whole session
// baseline; one optional method requires itself).
type Capability struct {
	Method   string
	Path     []string
	Value    JSONText
	Spec     string
	Requires []string
}

// MetaPolicy is how an update's _meta object applies to what is stored.
type MetaPolicy string

const (
	// MetaMerge: recursively (RFC 7396 JSON Merge Patch).
	MetaMerge MetaPolicy = "merge"
	// MetaReplace: the object replaces the stored one.
	MetaReplace MetaPolicy = "replace"
	// MetaPatch: by top-level key; null removes a key, any other value replaces it whole.
	MetaPatch MetaPolicy = "patch"
)

// MetaRule is the _meta policy of one update type, and the other policies a store may use.
type MetaRule struct {
	Type         string
	Policy       MetaPolicy
	Alternatives []MetaPolicy
	Spec         string
}

// CancelOutcome is a request that $/cancel_request ends with Result, not -32800.
type CancelOutcome struct {
	Method string
	Result JSONText
	Spec   string
}

// TurnRule: Cancel (a notification with a sessionId) ends the session's in-flight Method
// requests with Result, never an error. Received: the role handling Method receives Cancel (the
// agent's prompt); otherwise it sends it (the client's pending permission requests).
type TurnRule struct {
	Method   string
	Cancel   string
	Received bool
	Result   JSONText
	Spec     string
}

// TargetCancel is a request cancelling one target of a session (Target names the params
// field), answered with the Error code when the target is unknown, final or not cancellable.
type TargetCancel struct {
	Method string
	Target string
	Error  int
	Spec   string
}

// check is nil when the negotiation request's params (as they came) ask for a version the
// edition answers, else its Unsupported error naming the versions: "If no such version exists,
// initialization fails with error code -32022" (an edition without that code answers its own
// version).
func (n *Negotiation) check(params json.RawMessage) error {
	var named map[string]json.RawMessage
	_ = json.Unmarshal(params, &named)
	asked := named[n.Field]
	if _, ok := n.negotiate(asked); !ok {
		data, _ := json.Marshal(map[string]any{"requested": asked, "supported": []int{n.Version}})
		return &Error{Code: n.Unsupported, Message: "Unsupported protocol version", Data: data}
	}
	return nil
}

// negotiate is the version to answer a client that asked for asked (false: none fits). Anything
// but an integer below ours is answered with ours.
func (n *Negotiation) negotiate(asked json.RawMessage) (int, bool) {
	var wanted int64
	if len(asked) > 0 && asked[0] != '"' && json.Unmarshal(asked, &wanted) == nil && wanted < int64(n.Version) {
		return n.Version, n.Unsupported == 0
	}
	return n.Version, true
}

// Advertised are b's capabilities whose required methods all pass serves: what an agent's
// initialize answer advertises (never a method that answers -32601).
func Advertised(b Behaviour, serves func(method string) bool) []Capability {
	var found []Capability
	for _, capability := range b.Capabilities {
		required := capability.Requires
		if len(required) == 0 {
			required = []string{capability.Method}
		}
		all := true
		for _, method := range required {
			all = all && serves(method)
		}
		if all {
			found = append(found, capability)
		}
	}
	return found
}

// withCapability is object with value set at path, unless the path is already set or passes
// through a member that is not an object (the handler's answer is kept as it wrote it).
func withCapability(object json.RawMessage, path []string, value JSONText) (json.RawMessage, error) {
	var members map[string]json.RawMessage
	if len(path) == 0 || json.Unmarshal(object, &members) != nil || members == nil {
		return object, nil
	}
	inner, set := members[path[0]]
	switch {
	case len(path) == 1 && set:
		return object, nil
	case len(path) == 1:
		members[path[0]] = json.RawMessage(value)
	default:
		if !set {
			inner = json.RawMessage("{}")
		}
		nested, err := withCapability(inner, path[1:], value)
		if err != nil {
			return nil, err
		}
		members[path[0]] = nested
	}
	return json.Marshal(members)
}

// withMember is result's JSON object with name set to value.
func withMember(result any, name string, value any) (json.RawMessage, error) {
	encoded, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(encoded, &members); err != nil || members == nil {
		return nil, errors.New("acp: the " + name + " result is not a JSON object")
	}
	if members[name], err = json.Marshal(value); err != nil {
		return nil, err
	}
	return json.Marshal(members)
}

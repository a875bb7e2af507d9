package acp

// Layer: typed layer (the shapes of an edition's Behaviour data and the rules read from it).

// Behaviour is what an edition's SDK does beyond its types, as data the runtime reads (each
// edition's generated Behaviour, rendered from the IR's rules and checked against its schema):
// no code asks which edition it speaks.
type Behaviour struct {
	Negotiation Negotiation
	// Lifecycle is the prompt turn, or nil when the edition has none.
	Lifecycle      *PromptLifecycle
	Capabilities   []Capability
	Meta           []MetaRule
	CancelOutcomes []CancelOutcome
	TargetCancels  []TargetCancel
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

// TargetCancel is a request cancelling one target of a session (Target names the params
// field), answered with the Error code when the target is unknown, final or not cancellable.
type TargetCancel struct {
	Method string
	Target string
	Error  int
	Spec   string
}

package acp

// Layer: typed layer (an agent sets it on its UnimplementedAgent's Sessions; the generated agent
// handler answers session/list from it and advertises that in initialize). The same store as the
// Python and TypeScript runtimes' (session_store.py, session_store.ts), in memory; OpenSessionFile
// (session_file.go) keeps one in a file, each change returning once it is on disk.
//
// Agent side: NewSession records a session under a fresh id (Create under the caller's); Change
// applies a change and returns the session_info_update to send (only the changed fields, null
// for cleared ones, updatedAt stamped in RFC 3339 UTC unless given); ListSessions answers
// session/list a page at a time (session_list.go: its pages and cursors). Client side:
// ApplyUpdate keeps the mirror of a session from the updates received.
//
// The _meta policy is one per store: left unset, a store takes the policy of the edition whose
// agent it serves (v1 merge, v2 patch). Guards: a title longer than TitleLimit (500, the
// session-info RFD's "recommend 500 chars max") is truncated; a _meta over MetaLimit bytes (64
// KiB) or nested over 64 deep is rejected (OnProblem is told) and the stored state stays as it was.

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"time"
	"unicode/utf8"

	"acp-protocol-sdk/wire"
)

const metaDepthLimit = 64

// SessionRecord is one session as a store knows it.
type SessionRecord struct {
	SessionID string
	Cwd       string
	SessionInfo
}

// SessionChange is a change to a session: an absent field is left as it is, null clears it.
type SessionChange struct {
	Title     wire.Opt[string]
	Meta      wire.Opt[map[string]json.RawMessage]
	UpdatedAt wire.Opt[string]
}

// SessionStore keeps sessions in memory, in the order they were recorded. Safe for concurrent
// use. Set its fields before its first use.
type SessionStore struct {
	// Policy is how a _meta applies; "" takes the edition's (AdoptPolicy), merge until then.
	Policy MetaPolicy
	// TitleLimit, MetaLimit and PageSize default to 500, 64 KiB and 50 when 0.
	TitleLimit, MetaLimit, PageSize int
	// Clock is now as RFC 3339 UTC (UTCNow when nil).
	Clock func() string
	// OnProblem is told about a rejected _meta (nil: nobody).
	OnProblem func(message string)
	// HistoryLimit is the updates kept per session for session/load (DefaultHistoryLimit when
	// 0; session_backend.go).
	HistoryLimit int

	mu      sync.Mutex
	adopted MetaPolicy
	order   []string // ids in the order recorded (a position is its index + 1)
	records map[string]*SessionRecord
	commit  func(storeFile) error // keeps each change for good (OpenSessionFile's); nil: memory only
	failed  error                 // the commit that failed: every later change is refused (Err)
	history map[string]*sessionHistory
	updates *updateLog // the history on disk (OpenSessionFile's); nil: memory only
}

// UTCNow is now as RFC 3339 UTC with whole seconds (2026-11-21T12:00:00Z).
func UTCNow() string {
	return time.Now().UTC().Format(time.RFC3339)
}

// AdoptPolicy takes an edition's _meta policy, unless the store was given one.
func (s *SessionStore) AdoptPolicy(policy MetaPolicy) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.adopted = policy
}

// Get is the session recorded under id (false: none).
func (s *SessionStore) Get(id string) (SessionRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	record, ok := s.records[id]
	if !ok {
		return SessionRecord{}, false
	}
	return *record, true
}

// NewSession records a session under a new id (sess_ and 32 hex digits) this store never handed
// out. In a file: the zero SessionRecord when it could not be written (Err says why).
func (s *SessionStore) NewSession(cwd string, title wire.Opt[string]) SessionRecord {
	for {
		var random [16]byte
		_, _ = rand.Read(random[:])
		id := "sess_" + hex.EncodeToString(random[:])
		if _, taken := s.Get(id); !taken {
			return s.Create(id, cwd, title)
		}
	}
}

// Create records a new session (or returns the one recorded under that id). In a file: the zero
// SessionRecord when it could not be written (Err says why), and nothing recorded.
func (s *SessionStore) Create(id, cwd string, title wire.Opt[string]) SessionRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	if record, ok := s.records[id]; ok {
		return *record
	}
	if s.failed != nil {
		return SessionRecord{}
	}
	if s.records == nil {
		s.records = map[string]*SessionRecord{}
	}
	record := &SessionRecord{SessionID: id, Cwd: cwd}
	if text, ok := title.Get(); ok {
		clipped := s.clip(text)
		record.Title = &clipped
	}
	now := s.now()
	record.UpdatedAt = &now
	s.records[id] = record
	s.order = append(s.order, id)
	if s.persist(func() { s.forget(id) }) != nil {
		return SessionRecord{}
	}
	return *record
}

// Change applies change to session id and returns the session_info_update to send (its wire
// form), or nil when nothing changed or the change was rejected; an error for an unknown session,
// and in a file for a change that could not be written (nothing changed).
func (s *SessionStore) Change(id string, change SessionChange) (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed != nil {
		return nil, s.failed
	}
	record, ok := s.records[id]
	if !ok {
		return nil, errors.New("acp: unknown session " + quote(id) + ": Create it first")
	}
	update := map[string]any{}
	if !change.Title.IsAbsent() {
		title := textOrNil(change.Title, s.clip)
		if !sameText(title, record.Title) {
			update["title"] = title
		}
	}
	if !change.Meta.IsAbsent() {
		meta, present := change.Meta.Get()
		if present && !s.metaFits(id, meta) {
			return nil, nil
		}
		patch, _ := json.Marshal(map[string]any{"_meta": metaOrNil(meta, present)})
		after, _ := ApplySessionInfoUpdate(record.SessionInfo, json.RawMessage(patch), s.policy())
		if !reflect.DeepEqual(after.Meta, record.Meta) {
			update["_meta"] = metaOrNil(meta, present)
		}
	}
	if !change.UpdatedAt.IsAbsent() {
		if stamp := textOrNil(change.UpdatedAt, nil); !sameText(stamp, record.UpdatedAt) {
			update["updatedAt"] = stamp
		}
	} else if len(update) > 0 {
		update["updatedAt"] = s.now()
	}
	if len(update) == 0 {
		return nil, nil
	}
	update["sessionUpdate"] = "session_info_update"
	wire, err := json.Marshal(update)
	if err != nil {
		return nil, err
	}
	before := record.SessionInfo
	if !s.apply(record, wire) {
		return nil, nil
	}
	if err := s.persist(func() { record.SessionInfo = before }); err != nil {
		return nil, err
	}
	return wire, nil
}

// ApplyUpdate is the mirror of session id after a received session_info_update (its wire form,
// or a struct that marshals to it); false when the update was rejected, or in a file could not be
// written (state unchanged).
func (s *SessionStore) ApplyUpdate(id string, update any) (SessionRecord, bool) {
	raw, err := paramsJSON(update)
	if err != nil {
		return SessionRecord{}, false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil || members == nil {
		return SessionRecord{}, false
	}
	var title string
	if json.Unmarshal(members["title"], &title) == nil && members["title"] != nil && !isNull(members["title"]) {
		members["title"], _ = json.Marshal(s.clip(title))
		raw, _ = json.Marshal(members)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	record, known := s.records[id]
	if !known {
		record = &SessionRecord{SessionID: id}
	}
	before := record.SessionInfo
	if s.failed != nil || !s.apply(record, raw) {
		return SessionRecord{}, false
	}
	undo := func() { record.SessionInfo = before }
	if !known {
		if s.records == nil {
			s.records = map[string]*SessionRecord{}
		}
		s.records[id] = record
		s.order = append(s.order, id)
		undo = func() { s.forget(id) }
	}
	if s.persist(undo) != nil {
		return SessionRecord{}, false
	}
	return *record, true
}

// apply applies update (wire form) to record, unless the result breaks a guard (false).
func (s *SessionStore) apply(record *SessionRecord, update json.RawMessage) bool {
	after, err := ApplySessionInfoUpdate(record.SessionInfo, update, s.policy())
	if err != nil || (after.Meta != nil && !s.metaFits(record.SessionID, after.Meta)) {
		return false
	}
	record.SessionInfo = after
	return true
}

func (s *SessionStore) policy() MetaPolicy {
	switch {
	case s.Policy != "":
		return s.Policy
	case s.adopted != "":
		return s.adopted
	}
	return MetaMerge
}

func (s *SessionStore) now() string {
	if s.Clock != nil {
		return s.Clock()
	}
	return UTCNow()
}

// clip: "Agents should validate title length (recommend 500 chars max)" (session-info RFD).
func (s *SessionStore) clip(title string) string {
	limit := s.TitleLimit
	if limit <= 0 {
		limit = 500
	}
	if utf8.RuneCountInString(title) <= limit {
		return title
	}
	return string([]rune(title)[:limit])
}

func (s *SessionStore) metaFits(id string, meta map[string]json.RawMessage) bool {
	encoded, _ := json.Marshal(meta)
	limit := s.MetaLimit
	if limit <= 0 {
		limit = 64 << 10
	}
	problem := ""
	if depth := depthOf(encoded); depth > metaDepthLimit {
		problem = "_meta nested " + itoa(depth) + " deep rejected (limit " + itoa(metaDepthLimit) + ")"
	} else if len(encoded) > limit {
		problem = "_meta of " + itoa(len(encoded)) + " bytes rejected (limit " + itoa(limit) + ")"
	}
	if problem != "" && s.OnProblem != nil {
		s.OnProblem("session " + quote(id) + ": " + problem + "; state unchanged")
	}
	return problem == ""
}

// depthOf is how deeply objects and arrays nest in a JSON text (1: a flat object).
func depthOf(text []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range text {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

func textOrNil(value wire.Opt[string], clip func(string) string) *string {
	text, ok := value.Get()
	if !ok {
		return nil
	}
	if clip != nil {
		text = clip(text)
	}
	return &text
}

func sameText(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

func metaOrNil(meta map[string]json.RawMessage, present bool) any {
	if !present {
		return nil
	}
	return meta
}

func quote(text string) string {
	encoded, _ := json.Marshal(text)
	return string(encoded)
}

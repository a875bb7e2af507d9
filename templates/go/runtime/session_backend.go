package acp

// Layer: typed layer (what the generated v1 agent answers session/list, session/load and
// session/resume from: a SessionBackend, the agent's Sessions in memory or a file, or a store
// shared by every server process such as acppostgres's). The same store as the Python and
// TypeScript runtimes' (session_history.py, session_store.ts).
//
// What a session needs to move between server processes: besides its title and _meta, the
// updates the agent sent, in order. session/load must replay them ("The Agent MUST replay the
// entire conversation to the Client in the form of `session/update` notifications", ACP v1
// session-setup.mdx), and a process that did not run the session has only what the store kept.
//
// Bounded: each session keeps its last HistoryLimit updates (DefaultHistoryLimit, 1,000, unless
// set); older ones are deleted as new ones come, and a replay says how many it no longer has
// (Replay.Dropped). Updates are numbered per session from 1, so the number dropped is the first
// kept one's minus one. A SessionStore keeps its history in memory (OpenSessionFile's also in a
// log beside its file, session_file_updates.go); a shared store keeps it in its database.

import (
	"context"
	"encoding/json"
	"fmt"

	"acp-protocol-sdk/wire"
)

// DefaultHistoryLimit is the updates kept per session unless a store sets its own.
const DefaultHistoryLimit = 1000

// Replay is a session's kept updates, oldest first; Dropped is how many older ones the cap
// removed, Limit the cap.
type Replay struct {
	Updates []json.RawMessage
	Dropped int
	Limit   int
}

// SessionBackend is a session store as the generated agent uses it: each call may reach a
// database, so each takes a ctx and may fail. postgres.Store is one; SessionStore is one through
// BackendOf.
type SessionBackend interface {
	// Get is the session recorded under id (false: none).
	Get(ctx context.Context, id string) (SessionRecord, bool, error)
	// Create records a new session (or returns the one recorded under that id).
	Create(ctx context.Context, id, cwd string, title wire.Opt[string]) (SessionRecord, error)
	// ListSessions is one page of session/list.
	ListSessions(ctx context.Context, cwd, cursor string) (SessionPage, error)
	// AdoptPolicy takes an edition's _meta policy, unless the store was given one.
	AdoptPolicy(policy MetaPolicy)
	// AppendUpdates appends updates (each a session/update's update, its wire form) to session
	// id's history, in order, and returns once they are kept for good.
	AppendUpdates(ctx context.Context, id string, updates []json.RawMessage) error
	// ReadUpdates is session id's kept history.
	ReadUpdates(ctx context.Context, id string) (Replay, error)
}

// BackendOf is store as a SessionBackend (nil for nil).
func BackendOf(store *SessionStore) SessionBackend {
	if store == nil {
		return nil
	}
	return memoryBackend{store}
}

// memoryBackend is a SessionStore (in memory or a file) as a SessionBackend.
type memoryBackend struct{ store *SessionStore }

func (b memoryBackend) Get(_ context.Context, id string) (SessionRecord, bool, error) {
	record, ok := b.store.Get(id)
	return record, ok, nil
}

func (b memoryBackend) Create(_ context.Context, id, cwd string, title wire.Opt[string]) (SessionRecord, error) {
	record := b.store.Create(id, cwd, title)
	if record.SessionID == "" {
		return record, b.store.Err()
	}
	return record, nil
}

func (b memoryBackend) ListSessions(_ context.Context, cwd, cursor string) (SessionPage, error) {
	return b.store.ListSessions(cwd, cursor)
}

func (b memoryBackend) AdoptPolicy(policy MetaPolicy) { b.store.AdoptPolicy(policy) }

func (b memoryBackend) AppendUpdates(_ context.Context, id string, updates []json.RawMessage) error {
	return b.store.AppendUpdates(id, updates)
}

func (b memoryBackend) ReadUpdates(_ context.Context, id string) (Replay, error) {
	return b.store.ReadUpdates(id), nil
}

// sessionHistory is one session's updates in memory: how many were appended, the last kept.
type sessionHistory struct {
	sent int
	kept []json.RawMessage
}

// AppendUpdates appends updates to session id's history, keeping its last HistoryLimit; a store
// kept in a file has them on disk before it returns. An error (the log could not be written) is
// the store's Err from then on: every later change is refused, as for a failed write of the
// store's file.
func (s *SessionStore) AppendUpdates(id string, updates []json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed != nil {
		return s.failed
	}
	if len(updates) == 0 {
		return nil
	}
	if s.updates != nil {
		first := 1
		if history := s.history[id]; history != nil {
			first = history.sent + 1
		}
		if err := s.updates.append(id, first, updates); err != nil {
			s.failed = fmt.Errorf("acp: session history %s: cannot write it (%w); the updates are not kept", s.updates.path, err)
			return s.failed
		}
	}
	if s.history == nil {
		s.history = map[string]*sessionHistory{}
	}
	history := s.history[id]
	if history == nil {
		history = &sessionHistory{}
		s.history[id] = history
	}
	history.sent += len(updates)
	history.kept = append(history.kept, updates...)
	if extra := len(history.kept) - s.historyLimit(); extra > 0 {
		history.kept = append([]json.RawMessage(nil), history.kept[extra:]...)
	}
	if s.updates != nil {
		if err := s.updates.bound(s.history, s.historyLimit()); err != nil {
			s.failed = fmt.Errorf("acp: session history %s: cannot write it again (%w)", s.updates.path, err)
			return s.failed
		}
	}
	return nil
}

// ReadUpdates is session id's kept history.
func (s *SessionStore) ReadUpdates(id string) Replay {
	s.mu.Lock()
	defer s.mu.Unlock()
	replay := Replay{Updates: []json.RawMessage{}, Limit: s.historyLimit()}
	if history := s.history[id]; history != nil {
		kept := history.kept[max(len(history.kept)-replay.Limit, 0):] // a log read back keeps more
		replay.Updates = append(replay.Updates, kept...)
		replay.Dropped = history.sent - len(kept)
	}
	return replay
}

func (s *SessionStore) historyLimit() int {
	if s.HistoryLimit > 0 {
		return s.HistoryLimit
	}
	return DefaultHistoryLimit
}

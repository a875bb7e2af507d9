// The store corpus (tests/corpus/session_store/cases.json) on every backend of the Go runtime:
// memory and a file (acp.SessionStore) and PostgreSQL (acp-protocol-sdk/postgres), the same cases
// and the same results as the Python and TypeScript runtimes. PostgreSQL runs where
// ACP_TEST_POSTGRES names a server (tests/go/test_go_session_store_postgres.py passes the test
// run's); elsewhere its cases are skipped, saying so. "NOW" in a case is the store's clock.
package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	acp "acp-protocol-sdk"
	"acp-protocol-sdk/postgres"
	v2 "acp-protocol-sdk/v2"
	"acp-protocol-sdk/wire"
)

const now = "2026-11-21T12:00:00Z"

type step struct {
	Create *struct {
		ID    string  `json:"id"`
		Cwd   string  `json:"cwd"`
		Title *string `json:"title"`
	} `json:"create"`
	Change      map[string]json.RawMessage `json:"change"`
	ApplyUpdate *struct {
		ID     string          `json:"id"`
		Update json.RawMessage `json:"update"`
	} `json:"applyUpdate"`
	Get    *string `json:"get"`
	Record *struct {
		ID      string            `json:"id"`
		Updates []json.RawMessage `json:"updates"`
	} `json:"record"`
	Replay *string `json:"replay"`
	// Resume is a v2 session/resume's params (replayFrom omitted, null or a cursor): what it
	// replays from the store before its current state update (v2.Behaviour.Resume).
	Resume *struct {
		ID         string          `json:"id"`
		ReplayFrom json.RawMessage `json:"replayFrom"`
	} `json:"resume"`
	List   map[string]json.RawMessage `json:"list"`
	Expect json.RawMessage            `json:"expect"`
	More   *bool                      `json:"more"`
	Listed json.RawMessage            `json:"sessions"`
	Error  json.RawMessage            `json:"error"`
	Reopen bool                       `json:"reopen"` // close the store and open it again (not on memory)
}

type corpusCase struct {
	Case    string `json:"case"`
	Options struct {
		Policy     acp.MetaPolicy `json:"policy"`
		TitleLimit int            `json:"titleLimit"`
		MetaLimit  int            `json:"metaLimit"`
		PageSize   int            `json:"pageSize"`
		History    int            `json:"historyLimit"`
	} `json:"options"`
	Steps []step `json:"steps"`
}

// store is what a case drives: acp.SessionStore's calls, each with an error (the database's).
type store interface {
	create(id, cwd string, title wire.Opt[string]) (acp.SessionRecord, error)
	change(id string, change acp.SessionChange) (json.RawMessage, error)
	applyUpdate(id string, update json.RawMessage) (acp.SessionRecord, bool, error)
	get(id string) (acp.SessionRecord, bool, error)
	list(cwd, cursor string) (acp.SessionPage, error)
	backend() acp.SessionBackend // AppendUpdates and ReadUpdates, what session/load replays
}

type inMemory struct{ s *acp.SessionStore }

func (m inMemory) create(id, cwd string, title wire.Opt[string]) (acp.SessionRecord, error) {
	return m.s.Create(id, cwd, title), m.s.Err()
}
func (m inMemory) change(id string, change acp.SessionChange) (json.RawMessage, error) {
	return m.s.Change(id, change)
}
func (m inMemory) applyUpdate(id string, update json.RawMessage) (acp.SessionRecord, bool, error) {
	record, ok := m.s.ApplyUpdate(id, update)
	return record, ok, m.s.Err()
}
func (m inMemory) get(id string) (acp.SessionRecord, bool, error) {
	record, ok := m.s.Get(id)
	return record, ok, nil
}
func (m inMemory) list(cwd, cursor string) (acp.SessionPage, error) {
	return m.s.ListSessions(cwd, cursor)
}
func (m inMemory) backend() acp.SessionBackend { return acp.BackendOf(m.s) }

type inPostgres struct{ s *postgres.Store }

func (p inPostgres) create(id, cwd string, title wire.Opt[string]) (acp.SessionRecord, error) {
	return p.s.Create(context.Background(), id, cwd, title)
}
func (p inPostgres) change(id string, change acp.SessionChange) (json.RawMessage, error) {
	return p.s.Change(context.Background(), id, change)
}
func (p inPostgres) applyUpdate(id string, update json.RawMessage) (acp.SessionRecord, bool, error) {
	return p.s.ApplyUpdate(context.Background(), id, update)
}
func (p inPostgres) get(id string) (acp.SessionRecord, bool, error) {
	return p.s.Get(context.Background(), id)
}
func (p inPostgres) list(cwd, cursor string) (acp.SessionPage, error) {
	return p.s.ListSessions(context.Background(), cwd, cursor)
}
func (p inPostgres) backend() acp.SessionBackend { return p.s }

func loadCorpus(t *testing.T) []corpusCase {
	data, err := os.ReadFile("../../corpus/session_store/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// open opens a store on backend with the case's options, in place (a folder for a file, a schema
// suffix for PostgreSQL): opened again in the same place, it is the same store.
func open(t *testing.T, backend string, c corpusCase, place string) store {
	o := c.Options
	clock := func() string { return now }
	switch backend {
	case "memory", "file":
		s := &acp.SessionStore{}
		if backend == "file" {
			var err error
			if s, err = acp.OpenSessionFile(filepath.Join(place, "sessions.json")); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
		}
		s.Policy, s.TitleLimit, s.MetaLimit, s.PageSize, s.Clock, s.HistoryLimit = o.Policy, o.TitleLimit, o.MetaLimit, o.PageSize, clock, o.History
		return inMemory{s}
	}
	dsn := os.Getenv("ACP_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("no PostgreSQL server (ACP_TEST_POSTGRES unset)")
	}
	s, err := postgres.Open(context.Background(), dsn, postgres.Options{
		Schema: "corpus_" + filepath.Base(place), Policy: o.Policy, TitleLimit: o.TitleLimit,
		MetaLimit: o.MetaLimit, PageSize: o.PageSize, Clock: clock, HistoryLimit: o.History,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return inPostgres{s}
}

// stamped is a case's expected JSON with "NOW" read as the store's clock.
func stamped(raw json.RawMessage) any {
	var value any
	_ = json.Unmarshal([]byte(strings.ReplaceAll(string(raw), `"NOW"`, `"`+now+`"`)), &value)
	return value
}

func asJSON(value any) any {
	text, _ := json.Marshal(value)
	var decoded any
	_ = json.Unmarshal(text, &decoded)
	return decoded
}

func wireRecord(record acp.SessionRecord, found bool) any {
	if !found {
		return nil
	}
	return asJSON(map[string]any{"sessionId": record.SessionID, "cwd": record.Cwd, "title": record.Title, "updatedAt": record.UpdatedAt, "_meta": record.Meta})
}

func opt(fields map[string]json.RawMessage, key string) wire.Opt[string] {
	raw, present := fields[key]
	var text *string
	switch {
	case !present:
		return wire.Opt[string]{}
	case json.Unmarshal(raw, &text) != nil || text == nil:
		return wire.Null[string]()
	}
	return wire.Some(strings.ReplaceAll(*text, "NOW", now))
}

// resumed is what a v2 session/resume replays (replayFrom nil: omitted): nothing, or the history
// then replay_complete; an *acp.Error (-32602) for a cursor the store cannot serve.
func resumed(s store, id string, replayFrom json.RawMessage) (any, string, error) {
	params := []byte(`{}`)
	if replayFrom != nil {
		params, _ = json.Marshal(map[string]json.RawMessage{"replayFrom": replayFrom})
	}
	rule := v2.Behaviour.Resume
	wanted, err := rule.Wanted(params)
	if err != nil || !wanted {
		return asJSON([]json.RawMessage{}), "", err
	}
	replay, err := s.backend().ReadUpdates(context.Background(), id)
	return asJSON(rule.Replayed(replay.Updates)), "", err
}

// run is one step's outcome as JSON (and the next cursor, for a list).
func run(s store, st step, cursor string) (any, string, error) {
	switch {
	case st.Create != nil:
		title := wire.Opt[string]{}
		if st.Create.Title != nil {
			title = wire.Some(*st.Create.Title)
		}
		record, err := s.create(st.Create.ID, st.Create.Cwd, title)
		return wireRecord(record, true), "", err
	case st.Change != nil:
		var id string
		_ = json.Unmarshal(st.Change["id"], &id)
		change := acp.SessionChange{Title: opt(st.Change, "title"), UpdatedAt: opt(st.Change, "updatedAt")}
		if raw, present := st.Change["meta"]; present {
			var meta map[string]json.RawMessage
			_ = json.Unmarshal(raw, &meta)
			change.Meta = wire.Some(meta)
			if meta == nil {
				change.Meta = wire.Null[map[string]json.RawMessage]()
			}
		}
		update, err := s.change(id, change)
		if update == nil {
			return nil, "", err
		}
		return asJSON(update), "", err
	case st.ApplyUpdate != nil:
		record, ok, err := s.applyUpdate(st.ApplyUpdate.ID, st.ApplyUpdate.Update)
		return wireRecord(record, ok), "", err
	case st.Get != nil:
		record, ok, err := s.get(*st.Get)
		return wireRecord(record, ok), "", err
	case st.Record != nil:
		return nil, "", s.backend().AppendUpdates(context.Background(), st.Record.ID, st.Record.Updates)
	case st.Resume != nil:
		return resumed(s, st.Resume.ID, st.Resume.ReplayFrom)
	case st.Replay != nil:
		replay, err := s.backend().ReadUpdates(context.Background(), *st.Replay)
		return asJSON(map[string]any{"updates": replay.Updates, "dropped": replay.Dropped}), "", err
	}
	var cwd, given string
	_ = json.Unmarshal(st.List["cwd"], &cwd)
	_ = json.Unmarshal(st.List["cursor"], &given)
	if given == "next" {
		given = cursor
	}
	page, err := s.list(cwd, given)
	return page, page.NextCursor, err
}

func TestStoreCorpusOnEveryBackend(t *testing.T) {
	cases := loadCorpus(t)
	for _, backend := range []string{"memory", "file", "postgres"} {
		for _, c := range cases {
			t.Run(backend+": "+c.Case, func(t *testing.T) {
				reopens := false
				for _, st := range c.Steps {
					reopens = reopens || st.Reopen
				}
				if reopens && backend == "memory" {
					t.Skip("a memory store is gone with its process: nothing to open again")
				}
				var random [8]byte
				_, _ = rand.Read(random[:])
				place := filepath.Join(t.TempDir(), hex.EncodeToString(random[:]))
				if err := os.Mkdir(place, 0o700); err != nil {
					t.Fatal(err)
				}
				s := open(t, backend, c, place)
				cursor := ""
				for number, st := range c.Steps {
					if st.Reopen {
						s = open(t, backend, c, place)
						continue
					}
					outcome, next, err := run(s, st, cursor)
					if st.Error != nil {
						var code int
						if json.Unmarshal(st.Error, &code) == nil {
							var rpc *acp.Error
							if !errors.As(err, &rpc) || int(rpc.Code) != code {
								t.Fatalf("step %d: want error %d, got %v", number, code, err)
							}
						} else if want := strings.Trim(string(st.Error), `"`); err == nil || !strings.Contains(err.Error(), want) {
							t.Fatalf("step %d: want an error with %q, got %v", number, want, err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("step %d: %v", number, err)
					}
					if st.List != nil {
						page := outcome.(acp.SessionPage)
						ids := []any{}
						for _, listed := range page.Sessions {
							ids = append(ids, listed.SessionID)
						}
						if want := stamped(st.Expect); !reflect.DeepEqual(ids, want) {
							t.Fatalf("step %d: listed %v, want %v", number, ids, want)
						}
						if (page.NextCursor != "") != *st.More {
							t.Fatalf("step %d: nextCursor %q, want more=%v", number, page.NextCursor, *st.More)
						}
						if st.Listed != nil && !reflect.DeepEqual(asJSON(page.Sessions), stamped(st.Listed)) {
							t.Fatalf("step %d: sessions %v, want %s", number, asJSON(page.Sessions), st.Listed)
						}
						cursor = next
					} else if st.Expect != nil && !reflect.DeepEqual(outcome, stamped(st.Expect)) {
						got, _ := json.Marshal(outcome)
						t.Fatalf("step %d: got %s, want %s", number, got, st.Expect)
					}
				}
			})
		}
	}
}

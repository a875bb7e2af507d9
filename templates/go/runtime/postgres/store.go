// Package postgres keeps an agent's sessions in PostgreSQL, shared by every server process: a
// module of its own (acp-protocol-sdk/postgres, on pgx), so the acp module stays standard
// library only.
//
// Layer: typed layer (the storage of a session store). The rules are acp.SessionStore's (the
// _meta policy, the title and _meta guards, what a change sends): each call applies them to the
// row it read. A change is read, computed and written in one transaction that holds the
// session's row (SELECT … FOR UPDATE): several processes changing the same session wait for each
// other and none loses another's acknowledged change; a call returns only after its COMMIT, so a
// process killed at any moment loses nothing acknowledged. Open creates the tables (in Schema,
// public unless given) or migrates an older version under an advisory lock; a version newer than
// this package knows is refused in one line, untouched (schema.go). The tables are the Python
// runtime's (session_postgres.py) and the TypeScript one's (session_postgres.ts): the three
// share one database. A Store is an acp.SessionBackend: set it on a v1 UnimplementedAgent's
// SessionBackend and the agent records the updates it sends (updates.go) and answers
// session/list, session/load and session/resume from the database, for a session any process
// started.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"

	acp "acp-protocol-sdk"
	"acp-protocol-sdk/wire"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options are the store's: where its tables are, and acp.SessionStore's rules.
type Options struct {
	// Schema is the PostgreSQL schema of the tables (created when missing); "" is public.
	Schema string
	// Policy, TitleLimit, MetaLimit, PageSize, Clock and OnProblem are acp.SessionStore's.
	Policy                          acp.MetaPolicy
	TitleLimit, MetaLimit, PageSize int
	Clock                           func() string
	OnProblem                       func(message string)
	// HistoryLimit is the updates kept per session for session/load (acp.DefaultHistoryLimit,
	// 1,000, when 0): the oldest are deleted as new ones come (updates.go).
	HistoryLimit int
}

// Store is a session store in a PostgreSQL database. Safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	table   string
	updates string
	append  string // appendSQL for this schema
	where   string
	options Options
	mu      sync.Mutex
	adopted acp.MetaPolicy
}

// Error is a database this store cannot use: unreachable, or a schema it does not know. One line.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

// Open is the store in the database at dsn (a postgres:// URL or key=value string; pool_max_conns
// sets the pool's size), its tables created or migrated.
func Open(ctx context.Context, dsn string, options Options) (*Store, error) {
	config, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, &Error{"PostgreSQL: " + firstLine(err)}
	}
	where := "PostgreSQL " + config.ConnConfig.Host + ":" + strconv.Itoa(int(config.ConnConfig.Port)) + "/" + config.ConnConfig.Database
	pool, err := pgxpool.NewWithConfig(ctx, config)
	if err != nil {
		return nil, &Error{where + ": cannot connect: " + firstLine(err)}
	}
	schema := options.Schema
	if schema == "" {
		schema = "public"
	}
	updates := quote(schema) + ".acp_session_updates"
	store := &Store{pool: pool, table: quote(schema) + ".acp_sessions", updates: updates, append: fmt.Sprintf(appendSQL, updates), where: where, options: options}
	if err := store.transaction(ctx, func(tx pgx.Tx) error { return migrate(ctx, tx, schema, where) }); err != nil {
		pool.Close()
		return nil, err
	}
	return store, nil
}

// Close closes the pool's connections.
func (s *Store) Close() { s.pool.Close() }

// AdoptPolicy takes an edition's _meta policy, unless Options gave one.
func (s *Store) AdoptPolicy(policy acp.MetaPolicy) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.adopted = policy
}

// Get is the session recorded under id (false: none).
func (s *Store) Get(ctx context.Context, id string) (acp.SessionRecord, bool, error) {
	var found *acp.SessionRecord
	err := s.transaction(ctx, func(tx pgx.Tx) (err error) {
		found, err = s.selectRecord(ctx, tx, id, false)
		return err
	})
	if err != nil || found == nil {
		return acp.SessionRecord{}, false, err
	}
	return *found, true, nil
}

// NewSession records a session under a new id (sess_ and 32 hex digits) no process handed out.
func (s *Store) NewSession(ctx context.Context, cwd string, title wire.Opt[string]) (acp.SessionRecord, error) {
	for {
		record := s.rules().NewSession(cwd, title) // a fresh id, the title clipped, stamped now
		inserted := false
		err := s.transaction(ctx, func(tx pgx.Tx) (err error) {
			inserted, err = s.insert(ctx, tx, record)
			return err
		})
		if err != nil || inserted {
			return record, err
		}
	}
}

// Create records a new session (or returns the one recorded under that id).
func (s *Store) Create(ctx context.Context, id, cwd string, title wire.Opt[string]) (acp.SessionRecord, error) {
	var created acp.SessionRecord
	err := s.update(ctx, id, func(stored *acp.SessionRecord) (*acp.SessionRecord, error) {
		if stored != nil {
			created = *stored
			return stored, nil
		}
		created = s.rules().Create(id, cwd, title)
		return &created, nil
	})
	return created, err
}

// Change applies change to session id and returns the session_info_update to send (its wire
// form), or nil when nothing changed or the change was rejected; an error for an unknown session.
func (s *Store) Change(ctx context.Context, id string, change acp.SessionChange) (json.RawMessage, error) {
	var sent json.RawMessage
	err := s.update(ctx, id, func(stored *acp.SessionRecord) (*acp.SessionRecord, error) {
		sent = nil // applied again to what another process wrote: only the last counts
		if stored == nil {
			return nil, errors.New("acp: unknown session " + strconv.Quote(id) + ": Create it first")
		}
		rules := s.holding(*stored)
		update, err := rules.Change(id, change)
		if err != nil || update == nil {
			return stored, err
		}
		after, _ := rules.Get(id)
		sent = update
		return &after, nil
	})
	return sent, err
}

// ApplyUpdate is the mirror of session id after a received session_info_update (its wire form,
// or a struct that marshals to it); false when the update was rejected (nothing stored).
func (s *Store) ApplyUpdate(ctx context.Context, id string, update any) (acp.SessionRecord, bool, error) {
	var applied *acp.SessionRecord
	err := s.update(ctx, id, func(stored *acp.SessionRecord) (*acp.SessionRecord, error) {
		applied = nil
		rules := s.rules()
		if stored != nil {
			rules = s.holding(*stored)
		}
		after, ok := rules.ApplyUpdate(id, update)
		if !ok {
			return stored, nil
		}
		applied = &after
		return &after, nil
	})
	if err != nil || applied == nil {
		return acp.SessionRecord{}, false, err
	}
	return *applied, true, nil
}

// ListSessions is one page of session/list (cwd not "": only the sessions there), after cursor
// ("": from the first), in the order sessions were first recorded; -32602 for a cursor this
// store did not make.
func (s *Store) ListSessions(ctx context.Context, cwd, cursor string) (acp.SessionPage, error) {
	after, err := decodeCursor(cursor)
	if err != nil {
		return acp.SessionPage{}, err
	}
	size := s.options.PageSize
	if size <= 0 {
		size = 50
	}
	page := acp.SessionPage{Sessions: []acp.ListedSession{}}
	var positions []int64
	err = s.transaction(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT position, session_id, cwd, title, updated_at, meta FROM "+s.table+
			" WHERE position > $1 AND ($2::text IS NULL OR cwd = $2) ORDER BY position LIMIT $3", after, nullable(cwd), size+1)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var position int64
			record, err := scan(rows, &position)
			if err != nil {
				return err
			}
			positions = append(positions, position)
			page.Sessions = append(page.Sessions, acp.ListedSession{SessionID: record.SessionID, Cwd: record.Cwd, Title: record.Title, UpdatedAt: record.UpdatedAt, Meta: record.Meta})
		}
		return rows.Err()
	})
	if err != nil {
		return acp.SessionPage{}, err
	}
	if len(page.Sessions) > size {
		page.Sessions = page.Sessions[:size]
		page.NextCursor = encodeCursor(positions[size-1])
	}
	return page, nil
}

// rules is an empty in-memory acp.SessionStore with this store's settings: the rules each call
// applies to the row it read.
func (s *Store) rules() *acp.SessionStore {
	o := s.options
	rules := &acp.SessionStore{Policy: o.Policy, TitleLimit: o.TitleLimit, MetaLimit: o.MetaLimit, Clock: o.Clock, OnProblem: o.OnProblem}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.adopted != "" {
		rules.AdoptPolicy(s.adopted)
	}
	return rules
}

// holding is rules() holding stored exactly as read: recorded, then its fields set through a
// replace-policy update with no limits (the stored fields as they are), then the store's rules.
func (s *Store) holding(stored acp.SessionRecord) *acp.SessionStore {
	rules := s.rules()
	rules.Policy, rules.TitleLimit, rules.MetaLimit = acp.MetaReplace, math.MaxInt32, math.MaxInt32
	rules.Create(stored.SessionID, stored.Cwd, wire.Opt[string]{})
	fields := map[string]any{"title": stored.Title, "updatedAt": stored.UpdatedAt, "_meta": nil}
	if stored.Meta != nil {
		fields["_meta"] = stored.Meta
	}
	rules.ApplyUpdate(stored.SessionID, fields)
	o := s.options
	rules.Policy, rules.TitleLimit, rules.MetaLimit = o.Policy, o.TitleLimit, o.MetaLimit
	return rules
}

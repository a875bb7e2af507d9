package postgres

// The rows of acp_sessions: one transaction per call, a record read (and held) and written, and
// the cursor of session/list.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	acp "acp-protocol-sdk"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// update reads id with its row held, applies change, writes its result (the same pointer:
// nothing); again when another process recorded the session between the read and the insert.
func (s *Store) update(ctx context.Context, id string, change func(*acp.SessionRecord) (*acp.SessionRecord, error)) error {
	for {
		raced := false
		err := s.transaction(ctx, func(tx pgx.Tx) error {
			stored, err := s.selectRecord(ctx, tx, id, true)
			if err != nil {
				return err
			}
			after, err := change(stored)
			if err != nil || after == nil || after == stored {
				return err
			}
			if stored == nil {
				inserted, err := s.insert(ctx, tx, *after)
				raced = err == nil && !inserted
				return err
			}
			title, updatedAt, meta := columns(*after)
			_, err = tx.Exec(ctx, "UPDATE "+s.table+" SET cwd = $1, title = $2, updated_at = $3, meta = $4 WHERE session_id = $5", after.Cwd, title, updatedAt, meta, id)
			return err
		})
		if err != nil || !raced {
			return err
		}
	}
}

func (s *Store) selectRecord(ctx context.Context, tx pgx.Tx, id string, lock bool) (*acp.SessionRecord, error) {
	query := "SELECT 0, session_id, cwd, title, updated_at, meta FROM " + s.table + " WHERE session_id = $1"
	if lock {
		query += " FOR UPDATE"
	}
	rows, err := tx.Query(ctx, query, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	var position int64
	record, err := scan(rows, &position)
	return &record, err
}

func (s *Store) insert(ctx context.Context, tx pgx.Tx, record acp.SessionRecord) (bool, error) {
	title, updatedAt, meta := columns(record)
	tag, err := tx.Exec(ctx, "INSERT INTO "+s.table+" (session_id, cwd, title, updated_at, meta) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (session_id) DO NOTHING",
		record.SessionID, record.Cwd, title, updatedAt, meta)
	return err == nil && tag.RowsAffected() == 1, err
}

// transaction runs work in one transaction (COMMIT, or ROLLBACK on an error); a database or
// connection error becomes a one-line *Error, others pass as they are.
func (s *Store) transaction(ctx context.Context, work func(pgx.Tx) error) error {
	return s.failed(pgx.BeginFunc(ctx, s.pool, work))
}

// failed is err as the store returns it: a database or connection error a one-line *Error.
func (s *Store) failed(err error) error {
	var own *Error
	var database *pgconn.PgError
	switch {
	case err == nil || errors.As(err, &own):
		return err
	case errors.As(err, &database):
		return &Error{s.where + ": " + firstLine(database)}
	case strings.HasPrefix(err.Error(), "acp:"):
		return err
	}
	var connect *pgconn.ConnectError
	if errors.As(err, &connect) {
		return &Error{s.where + ": cannot connect: " + firstLine(err)}
	}
	return &Error{s.where + ": " + firstLine(err)}
}
func scan(rows pgx.Rows, position *int64) (acp.SessionRecord, error) {
	var record acp.SessionRecord
	var meta *string
	if err := rows.Scan(position, &record.SessionID, &record.Cwd, &record.Title, &record.UpdatedAt, &meta); err != nil {
		return record, err
	}
	if meta != nil {
		if err := json.Unmarshal([]byte(*meta), &record.Meta); err != nil {
			return record, err
		}
	}
	return record, nil
}

func columns(record acp.SessionRecord) (title, updatedAt, meta *string) {
	if record.Meta != nil {
		encoded, _ := json.Marshal(record.Meta)
		text := string(encoded)
		meta = &text
	}
	return record.Title, record.UpdatedAt, meta
}

func nullable(text string) *string {
	if text == "" {
		return nil
	}
	return &text
}

func encodeCursor(position int64) string {
	text, _ := json.Marshal(map[string]int64{"after": position})
	return base64.RawURLEncoding.EncodeToString(text)
}

// decodeCursor is the position a cursor continues after; -32602 for a cursor this store did not
// make (the acp store's answer).
func decodeCursor(text string) (int64, error) {
	if text == "" {
		return 0, nil
	}
	var parsed struct {
		After *int64 `json:"after"`
	}
	decoded, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil || json.Unmarshal(decoded, &parsed) != nil || parsed.After == nil || *parsed.After < 0 {
		data, _ := json.Marshal(map[string]string{"cursor": text})
		return 0, &acp.Error{Code: acp.InvalidParams, Message: "Invalid cursor", Data: data}
	}
	return *parsed.After, nil
}

func firstLine(err error) string {
	text := strings.TrimSpace(err.Error())
	if line, _, found := strings.Cut(text, "\n"); found {
		return line
	}
	return text
}

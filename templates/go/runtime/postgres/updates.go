package postgres

// The updates session/load replays: acp_session_updates (session_id, seq, body), seq from 1 per
// session, body the update's JSON; the Python and TypeScript runtimes write the same rows
// (session_history.py, session_postgres.ts). Bounded: each session keeps its last HistoryLimit
// updates, the older ones deleted in the transaction that appends; a replay says how many it no
// longer has (the first kept seq minus one).

import (
	"context"
	"encoding/json"
	"strconv"

	acp "acp-protocol-sdk"

	"github.com/jackc/pgx/v5"
)

// AppendUpdates appends updates to session id's history in one transaction and returns after
// its COMMIT: one appender per session at a time (an advisory lock on the session), so the next
// number is read, then used.
func (s *Store) AppendUpdates(ctx context.Context, id string, updates []json.RawMessage) error {
	if len(updates) == 0 {
		return nil
	}
	keep := s.historyLimit()
	return s.transaction(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock("+strconv.Itoa(lockKey)+", hashtext($1))", id); err != nil {
			return err
		}
		var last int64
		if err := tx.QueryRow(ctx, "SELECT coalesce(max(seq), 0) FROM "+s.updates+" WHERE session_id = $1", id).Scan(&last); err != nil {
			return err
		}
		batch := &pgx.Batch{}
		for n, update := range updates {
			batch.Queue("INSERT INTO "+s.updates+" (session_id, seq, body) VALUES ($1, $2, $3)", id, last+int64(n)+1, string(update))
		}
		batch.Queue("DELETE FROM "+s.updates+" WHERE session_id = $1 AND seq <= $2", id, last+int64(len(updates))-int64(keep))
		return tx.SendBatch(ctx, batch).Close()
	})
}

// ReadUpdates is session id's kept history, oldest first.
func (s *Store) ReadUpdates(ctx context.Context, id string) (acp.Replay, error) {
	replay := acp.Replay{Updates: []json.RawMessage{}, Limit: s.historyLimit()}
	err := s.transaction(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT seq, body FROM "+s.updates+" WHERE session_id = $1 ORDER BY seq", id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var seq int64
			var body string
			if err := rows.Scan(&seq, &body); err != nil {
				return err
			}
			if len(replay.Updates) == 0 {
				replay.Dropped = int(seq - 1)
			}
			replay.Updates = append(replay.Updates, json.RawMessage(body))
		}
		return rows.Err()
	})
	return replay, err
}

func (s *Store) historyLimit() int {
	if s.options.HistoryLimit > 0 {
		return s.options.HistoryLimit
	}
	return acp.DefaultHistoryLimit
}

// The store is what a v1 agent keeps its sessions in (UnimplementedAgent.SessionBackend).
var _ acp.SessionBackend = (*Store)(nil)

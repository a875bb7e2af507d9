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

// appendSQL numbers a batch of updates ($2) after session $1's last and deletes the ones past the
// cap ($3), those of the batch itself included (they are not written: the numbers, and the count
// a replay reports dropped, are the same). The Python and TypeScript stores send the same.
const appendSQL = "WITH last AS (SELECT coalesce(max(seq), 0) AS seq FROM %[1]s WHERE session_id = $1)," +
	" trimmed AS (DELETE FROM %[1]s WHERE session_id = $1 AND seq <= (SELECT seq FROM last) + cardinality($2::text[]) - $3)" +
	" INSERT INTO %[1]s (session_id, seq, body) SELECT $1, last.seq + b.n, b.body" +
	" FROM last, unnest($2::text[]) WITH ORDINALITY AS b(body, n) WHERE b.n > cardinality($2::text[]) - $3"

// AppendUpdates appends updates to session id's history and returns after they are committed:
// one round trip (a pgx.Batch, run as one implicit transaction), the session's advisory lock
// first, so one appender per session at a time (its own statement: the next one's snapshot sees
// what the last holder committed), then the append: the next number is read, then used.
func (s *Store) AppendUpdates(ctx context.Context, id string, updates []json.RawMessage) error {
	if len(updates) == 0 {
		return nil
	}
	bodies := make([]string, len(updates))
	for n, update := range updates {
		bodies[n] = string(update)
	}
	batch := &pgx.Batch{}
	batch.Queue("SELECT pg_advisory_xact_lock("+strconv.Itoa(lockKey)+", hashtext($1))", id)
	batch.Queue(s.append, id, bodies, s.historyLimit())
	return s.failed(s.pool.SendBatch(ctx, batch).Close())
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

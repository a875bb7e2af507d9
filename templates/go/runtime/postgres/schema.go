package postgres

// The store's schema: its tables, the version row of acp_session_store, and the migrations that
// bring an older version to this one (Open runs them under an advisory lock, so processes
// starting at once migrate once; a version newer than this package knows is refused untouched).

import (
	"context"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Format is the format row of acp_session_store: the tables are this store's.
const Format = "acp-codegen-session-store"

// SchemaVersion is the newest schema this package knows; migrations[n-1] brings n-1 to n.
const SchemaVersion = 2

var migrations = [][]string{{
	"CREATE TABLE {schema}.acp_sessions (position BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, session_id TEXT NOT NULL UNIQUE, cwd TEXT NOT NULL, title TEXT, updated_at TEXT, meta TEXT)",
	"CREATE INDEX acp_sessions_cwd ON {schema}.acp_sessions (cwd, position)",
}, {
	// 2: the updates session/load replays (updates.go), as every runtime's store writes them
	// (session_history.py, session_postgres.ts).
	"CREATE TABLE {schema}.acp_session_updates (session_id TEXT NOT NULL, seq BIGINT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (session_id, seq))",
}}

const lockKey = 0x41435053 // "ACPS": held while the schema is created or migrated

func migrate(ctx context.Context, tx pgx.Tx, schema, where string) error {
	quoted := quote(schema)
	for _, statement := range []string{
		"SELECT pg_advisory_xact_lock(" + strconv.Itoa(lockKey) + ")",
		"CREATE SCHEMA IF NOT EXISTS " + quoted,
		"CREATE TABLE IF NOT EXISTS " + quoted + ".acp_session_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
	} {
		if _, err := tx.Exec(ctx, statement); err != nil {
			return err
		}
	}
	rows, err := tx.Query(ctx, "SELECT key, value FROM "+quoted+".acp_session_store")
	if err != nil {
		return err
	}
	found := map[string]string{}
	for rows.Next() {
		var key, value string
		if err := rows.Scan(&key, &value); err != nil {
			return err
		}
		found[key] = value
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if format, ok := found["format"]; len(found) > 0 && (!ok || format != Format) {
		return &Error{where + ": " + schema + ".acp_session_store belongs to another program (format " + strconv.Quote(format) + ")"}
	}
	text := found["version"]
	if text == "" {
		text = "0"
	}
	version, err := strconv.Atoi(text)
	if err != nil || version < 0 {
		return &Error{where + ": session store schema version " + strconv.Quote(text) + " is not a number"}
	}
	if version > SchemaVersion {
		return &Error{where + ": session store schema version " + text + " is newer than this runtime's (" + strconv.Itoa(SchemaVersion) + "): upgrade acp-protocol-sdk, or use another schema"}
	}
	for number := version + 1; number <= SchemaVersion; number++ {
		for _, statement := range migrations[number-1] {
			if _, err := tx.Exec(ctx, strings.ReplaceAll(statement, "{schema}", quoted)); err != nil {
				return err
			}
		}
	}
	if version < SchemaVersion {
		_, err = tx.Exec(ctx, "INSERT INTO "+quoted+".acp_session_store VALUES ('format', $1), ('version', $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", Format, strconv.Itoa(SchemaVersion))
	}
	return err
}

func quote(identifier string) string {
	return `"` + strings.ReplaceAll(identifier, `"`, `""`) + `"`
}

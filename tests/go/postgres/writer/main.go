// A writer process for the PostgreSQL store tests (tests/go/test_go_session_store_postgres.py):
// `writer DSN SCHEMA NAME COUNT` records the session "shared" and merges COUNT _meta keys NAME-i
// into it, printing each key once its change is acknowledged (committed).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	acp "acp-protocol-sdk"
	"acp-protocol-sdk/postgres"
	"acp-protocol-sdk/wire"
)

func main() {
	dsn, schema, name := os.Args[1], os.Args[2], os.Args[3]
	count, _ := strconv.Atoi(os.Args[4])
	ctx := context.Background()
	store, err := postgres.Open(ctx, dsn+"?pool_max_conns=2", postgres.Options{Schema: schema, Policy: acp.MetaMerge})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer store.Close()
	for number := range count {
		if _, err := store.Create(ctx, "shared", "/w", wire.Opt[string]{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		key := name + "-" + strconv.Itoa(number)
		meta := map[string]json.RawMessage{key: json.RawMessage(strconv.Itoa(number))}
		if _, err := store.Change(ctx, "shared", acp.SessionChange{Meta: wire.Some(meta)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(key) // unbuffered: each line written as it is acknowledged
	}
}

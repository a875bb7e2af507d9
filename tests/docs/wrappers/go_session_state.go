// docs/go-target.md's client-state block: what it takes as known (a ctx, a v2 agent spawned as a
// process, a client type and a session), and a use of each name it declares. Compiled only: it
// would spawn an agent.
package main

import (
	"context"
	"fmt"

	acp "acp-protocol-sdk"
	v2 "acp-protocol-sdk/v2"
)

type myClient struct{ v2.UnimplementedClient }

func main() {
	ctx := context.Background()
	process, err := acp.Spawn(ctx, "./agent")
	if err != nil {
		panic(err)
	}
	session := v2.NewSessionResponse{SessionID: "session-1"}
	// FRAGMENT
	_, _, _ = reason, err, snapshot
	conn.Close()
}

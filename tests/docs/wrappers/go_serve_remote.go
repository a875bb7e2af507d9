// docs/transports.md's Go remote block: what it takes as known (a ctx, a token, an agent and a
// client type), and a use of each name it declares. Compiled only: the whole program of
// docs/go-target.md is built the same way, and tests/go/test_interop_go_remote.py serves one.
package main

import (
	"context"
	"net"
	"net/http"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
)

type MyAgent struct{ v1.UnimplementedAgent }

type myClient struct{ v1.UnimplementedClient }

func main() {
	ctx := context.Background()
	token := "t0ken"
	// FRAGMENT
	_, _ = remote, err
}

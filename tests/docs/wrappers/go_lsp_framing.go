// docs/go-target.md's LSP framing block: what it takes as known (a ctx and a handler), and a
// use of each name it declares. Compiled only: it would spawn pylsp.
package main

import (
	"context"
	"encoding/json"
	"os/exec"

	acp "acp-protocol-sdk"
)

type handler struct{}

func (handler) HandleRequest(context.Context, string, json.RawMessage) (any, error) {
	return nil, nil
}

func (handler) HandleNotification(context.Context, string, json.RawMessage) {}

func main() {
	ctx := context.Background()
	var handler handler
	// FRAGMENT
	_, _ = server, err
	conn.Close()
}

// docs/go-target.md's MCP cancellation block: what it takes as known (a ctx, a handler and the
// params of a tool call), and a use of each name it declares. Compiled only: it would wait for an
// MCP server on stdin.
package main

import (
	"context"
	"encoding/json"

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
	params := map[string]any{"name": "search", "arguments": map[string]any{"query": "acp"}}
	// FRAGMENT
	stop(acp.CancelReason("done"))
	_, _ = result, err
	conn.Close()
}

package acp

// Layer: dispatcher (the graceful wait of a cancelled caller).

import "context"

type gracefulKey struct{}

// Graceful marks ctx (and every ctx derived from it) so that a request sent with it, once ctx
// ends, sends $/cancel_request (the cancel of the connection's Dialect) and keeps waiting for
// the peer's answer: its -32800 (an *Error with Code RequestCancelled), or the result when the
// work finished first. Without the mark the caller stops waiting at once and a late answer is
// dropped. The connection's close still ends the wait. In MCP, whose receivers "Not send a
// response for the cancelled request", the caller stops waiting at once all the same.
func Graceful(ctx context.Context) context.Context {
	return context.WithValue(ctx, gracefulKey{}, true)
}

func isGraceful(ctx context.Context) bool {
	graceful, _ := ctx.Value(gracefulKey{}).(bool)
	return graceful
}

package acp

// Layer: dispatcher (our requests: their ids, the pending table, their answers, and cancelling
// them: the dialect's cancel once the caller's ctx ends, and the graceful wait of a cancelled
// caller; the Python runtime's outgoing.py and the TypeScript runtime's outgoing.ts).

import (
	"context"
	"encoding/json"
)

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

// Request sends a request and waits for its answer: the result, an *Error the peer answered
// with, or ctx's cause once ctx ends (then $/cancel_request, the cancel of the connection's
// Dialect, is sent for it, and a late answer is dropped; with a Graceful ctx the wait goes on
// for the peer's answer, except in MCP, where none comes).
func (c *Connection) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	id := c.nextID.Add(1)
	frame, err := requestFrame(id, method, params)
	if err != nil {
		return nil, err
	}
	key := "n" + itoa(int(id))
	answer := make(chan reply, 1)
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return nil, c.reason
	}
	if c.inputEnded != nil {
		c.mu.Unlock()
		return nil, c.inputEnded
	}
	c.pending[key] = pendingCall{answer: answer, direct: ctx.Value(inNotificationKey{}) != nil}
	c.mu.Unlock()
	if err := c.transport.WriteFrame(frame); err != nil {
		c.forget(key)
		return nil, err
	}
	select {
	case got := <-answer:
		if c.observe != nil && got.err == nil {
			c.observe(method, params, got.result)
		}
		return got.result, got.err
	case <-ctx.Done():
		return c.withdraw(ctx, method, key, id, answer)
	}
}

// withdraw ends our request id once its ctx has ended. Kept out of Request (noinline): a pending
// request's goroutine waits in Request, and its stack is sized by the deepest frames it went
// through, so Request's own frame stays small (a goroutine of 4 KiB instead of 8 per pending
// request, `make bench` (e)).
//
//go:noinline
func (c *Connection) withdraw(ctx context.Context, method, key string, id int64, answer <-chan reply) (json.RawMessage, error) {
	// A method the dialect never cancels sends no cancel (LSP: until the InitializeResult
	// "the client must not send any additional requests or notifications to the server";
	// MCP: "The `initialize` request MUST NOT be cancelled by clients"), and is answered.
	cancellable := c.dialect.cancels(method)
	// MCP: receivers SHOULD "Not send a response for the cancelled request", and "The
	// sender of the cancellation notification SHOULD ignore any response to the request
	// that arrives afterward": no wait, graceful or not. ACP: "The calling side MAY
	// implement graceful cancellation processing by waiting for the response".
	graceful := isGraceful(ctx) && (c.dialect.AnswersCancelled || !cancellable)
	if !graceful {
		c.forget(key)
	}
	if cancellable {
		cancel, _ := notificationFrame(c.dialect.Method, c.dialect.cancelParams(id, context.Cause(ctx)))
		_ = c.transport.WriteFrame(cancel)
	}
	if graceful { // the peer's answer, or the connection's close
		got := <-answer
		return got.result, got.err
	}
	return nil, context.Cause(ctx)
}

// Notify sends a notification.
func (c *Connection) Notify(method string, params any) error {
	raw, err := paramsJSON(params)
	if err != nil {
		return err
	}
	return c.notifyEncoded(method, raw)
}

// notifyEncoded sends a notification of params encoded already (by paramsJSON).
func (c *Connection) notifyEncoded(method string, raw json.RawMessage) error {
	frame, err := encodedNotificationFrame(method, raw)
	if err != nil {
		return err
	}
	if err := c.Err(); err != nil {
		return err
	}
	return c.transport.WriteFrame(frame)
}

func (c *Connection) forget(key string) {
	c.mu.Lock()
	delete(c.pending, key)
	c.mu.Unlock()
}

func (c *Connection) answered(msg message) {
	key, ok := idKey(msg.ID)
	if !ok {
		return
	}
	c.mu.Lock()
	call, ok := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	answer := call.answer
	if !ok { // an answer to no pending request (one we stopped waiting for) is dropped
		return
	}
	if msg.Error != nil {
		answer <- reply{err: msg.Error}
	} else {
		answer <- reply{result: msg.Result}
	}
}

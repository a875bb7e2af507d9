package acp

// Layer: dispatcher (the peer's requests: each handled in a goroutine of the connection with a
// ctx that $/cancel_request (the cancel of the connection's Dialect) or the close ends, and the
// one mapping of its outcome to its answer).

import (
	"context"
	"encoding/json"
	"errors"
)

// inFlight is one of the peer's requests being handled.
type inFlight struct {
	method string
	ctx    context.Context
	cancel context.CancelCauseFunc
	// byPeer: the peer's cancel named it (MCP: then it is not answered; LSP: a cancel of our
	// own is -32802, the peer's -32800).
	byPeer bool
}

// cancelled cancels the ctx of the peer's request that $/cancel_request (the dialect's cancel)
// names; an unknown, finished or malformed id is ignored, never answered (ACP: "If an agent or
// client receives notifications starting with '$/' it is free to ignore the notification"; MCP:
// the receiver MAY ignore it if "The referenced request is unknown; Processing has already
// completed; The request cannot be cancelled"), and so is a cancel of a method the dialect
// never cancels (`initialize` in LSP and MCP). MCP: "Both parties SHOULD log cancellation
// reasons": the reason is in the ctx's cause (a CancelReason).
func (c *Connection) cancelled(params json.RawMessage) {
	id, reason := c.dialect.named(params)
	key, ok := idKey(id)
	if !ok {
		return
	}
	c.mu.Lock()
	request := c.inFlight[key]
	// A request whose ctx has ended already (the connection's close, an earlier cancel) keeps
	// its cause.
	if request == nil || request.ctx.Err() != nil || !c.dialect.cancels(request.method) {
		c.mu.Unlock()
		return
	}
	request.byPeer = true
	c.mu.Unlock()
	if reason != "" {
		request.cancel(&peerCancel{reason: reason})
	} else {
		request.cancel(ErrCancelledByPeer)
	}
}

func (c *Connection) startRequest(msg message) {
	key, ok := idKey(msg.ID)
	if !ok {
		c.write(errorFrame(nil, &Error{Code: InvalidRequest, Message: "Invalid request"}))
		return
	}
	if !c.flow.enter(c.base.Done()) { // flow control: the read loop waits here while full
		return
	}
	ctx, cancel := context.WithCancelCause(context.WithValue(c.base, requestIDKey{}, msg.ID))
	c.mu.Lock()
	_, taken := c.inFlight[key]
	if c.closing || taken {
		c.mu.Unlock()
		cancel(ErrConnectionClosed)
		c.flow.leave()
		if taken {
			c.write(errorFrame(msg.ID, &Error{Code: InvalidRequest, Message: "Request id " + string(msg.ID) + " is already in use by a request in flight"}))
		}
		return
	}
	request := &inFlight{method: *msg.Method, ctx: ctx, cancel: cancel}
	c.inFlight[key] = request
	c.handlers.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.handlers.Done()
		defer c.flow.leave() // once the answer is written: a peer that does not read counts
		result, err := c.handler.HandleRequest(ctx, *msg.Method, msg.Params)
		c.mu.Lock()
		delete(c.inFlight, key)
		byPeer := request.byPeer
		c.mu.Unlock()
		cancel(nil)
		if byPeer && !c.dialect.AnswersCancelled {
			return // MCP: receivers SHOULD "Not send a response for the cancelled request"
		}
		c.write(c.answer(msg.ID, result, err, byPeer))
		if then, ok := result.(answeredFirst); ok && err == nil {
			then.answered()
		}
	}()
}

// answeredFirst is a result with work that must start only once the answer is written (a
// prompt answered at insertion: its work's updates follow the answer).
type answeredFirst interface {
	answered()
}

// spawn runs f in a goroutine the connection owns (Close waits for it) with a ctx that ends
// when the connection closes; false when the connection is closing (f does not run). It is
// called by a handler (the count of handlers is above zero then).
func (c *Connection) spawn(f func(ctx context.Context)) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return false
	}
	c.handlers.Add(1)
	go func() {
		defer c.handlers.Done()
		f(c.base)
	}()
	return true
}

// answer is the one mapping of a handler's outcome to its answer: the result; -32800 with the
// id in data for a handler that ended by its ctx (a cancel from the peer, or its own: internal
// cancellation looks the same, ACP: "Send the same `-32800` (Cancelled) error response as if
// `$/cancel_request` was received"); any other error as ErrorFor maps it. A dialect that tells
// the receiver's own cancellation apart answers it its SelfCancel instead (LSP: -32802
// ServerCancelled, "The server cancelled the request"), the peer's cancel still -32800.
func (c *Connection) answer(id json.RawMessage, result any, err error, byPeer bool) []byte {
	if err == nil {
		frame, marshalErr := resultFrame(id, result)
		if marshalErr == nil {
			return frame
		}
		err = marshalErr
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrCancelledByPeer) {
		data, _ := json.Marshal(map[string]json.RawMessage{"requestId": id})
		return errorFrame(id, c.ownCancel(&Error{Code: RequestCancelled, Message: "Request cancelled", Data: data}, byPeer))
	}
	return errorFrame(id, c.ownCancel(ErrorFor(err), byPeer))
}

// ownCancel is failure, or the dialect's SelfCancel (its code and message, failure's data) for
// a -32800 the peer did not ask for.
func (c *Connection) ownCancel(failure *Error, byPeer bool) *Error {
	own := c.dialect.SelfCancel
	if own == nil || byPeer || failure.Code != RequestCancelled {
		return failure
	}
	return &Error{Code: own.Code, Message: own.Message, Data: failure.Data}
}

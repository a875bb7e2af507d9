package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Handler answers the peer's requests and takes its notifications. Layer: dispatcher. The ctx
// of a request ends when the peer sends $/cancel_request for it (the cancel of the connection's
// Dialect) or the connection closes; requests a handler makes with that ctx are cancelled with
// it (the cascade).
type Handler interface {
	// HandleRequest returns the result, or an error: an *Error as it is, a context error -32800,
	// any other the one mapping of ErrorFor.
	HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error)
	// HandleNotification takes a notification; notifications are handled one at a time, in the
	// order they came.
	HandleNotification(ctx context.Context, method string, params json.RawMessage)
}

// ErrCancelledByPeer is the cause of a request ctx the peer cancelled ($/cancel_request, or the
// cancel of the connection's Dialect; with a reason, the cause also is its CancelReason).
var ErrCancelledByPeer = errors.New("acp: the peer cancelled the request")

// ErrConnectionClosed is the cause of every ctx and the error of every pending request when
// the connection closes.
var ErrConnectionClosed = errors.New("acp: connection closed")

// ErrPeerClosed is ErrConnectionClosed when the peer ended its stream.
var ErrPeerClosed = fmt.Errorf("%w: the peer ended its stream", ErrConnectionClosed)

// reply is what a pending request gets: the peer's answer, or why none will come.
type reply struct {
	result json.RawMessage
	err    error
}

// Connection is one JSON-RPC peer over a transport: our requests and their answers by id, the
// peer's requests each handled in a goroutine of the connection, and $/cancel_request (or the
// cancel of another Dialect it speaks) both ways through context.Context. Every goroutine it
// starts ends before Close returns. Layer: dispatcher; it holds no typed-layer state (a role's
// handler keeps its own per connection, Binder).
type Connection struct {
	transport Transport
	handler   Handler
	dialect   Dialect
	base      context.Context
	stop      context.CancelCauseFunc
	nextID    atomic.Int64

	mu       sync.Mutex
	pending  map[string]pendingCall
	queued   int // notifications read and not yet handled: answers wait behind them
	inFlight map[string]*inFlight
	closing  bool
	reason   error
	// inputEnded is why our requests fail at once after the peer's end of input (half-close),
	// while its requests read before run on.
	inputEnded error
	eofGrace   time.Duration

	flow     flowGate
	notes    chan message
	handlers sync.WaitGroup // one per peer request being handled
	workers  sync.WaitGroup // the read loop and the notification loop
	closed   chan struct{}
	// trace records every frame when ACP_TRACE is set (wire_trace.go); nil otherwise.
	trace *wireTrace
	// observe is told each of our requests answered with a result (Remote's reconnect notes
	// what a new connection must ask again); nil otherwise.
	observe func(method string, params any, result json.RawMessage)
}

// closeGrace is how long Close lets cancelled handlers write their answers (-32800: internal
// cancellation answers as a cancel from the peer would) before it closes the transport.
const closeGrace = time.Second

// NewConnection starts reading t and handling what comes with h (with the Handler its Bind
// returns for this connection when h is a Binder: a role's handler under its BehaviourEngine).
func NewConnection(t Transport, h Handler, options ...Option) *Connection {
	c := &Connection{
		transport: t,
		handler:   h,
		pending:   map[string]pendingCall{},
		inFlight:  map[string]*inFlight{},
		notes:     make(chan message, 256),
		closed:    make(chan struct{}),
		flow:      flowGate{limit: DefaultMaxInFlight},
		eofGrace:  DefaultEOFGrace,
		dialect:   ACP,
	}
	for _, option := range options {
		option(c)
	}
	c.transport, c.trace = traceFromEnvironment(t)
	c.base, c.stop = context.WithCancelCause(context.WithValue(context.Background(), connectionKey{}, c))
	if binder, ok := h.(Binder); ok {
		c.handler = binder.Bind(c)
	}
	c.workers.Add(2)
	go c.readLoop()
	go c.notificationLoop()
	return c
}

type connectionKey struct{}

// ConnectionOf is the connection whose peer's request or notification ctx belongs to (nil for
// any other ctx): a handler's way back to the peer.
func ConnectionOf(ctx context.Context) *Connection {
	c, _ := ctx.Value(connectionKey{}).(*Connection)
	return c
}

// Done is closed once the connection has closed (Close, or the peer's end of stream) and every
// goroutine it started has ended.
func (c *Connection) Done() <-chan struct{} {
	return c.closed
}

// Err is why the connection closed (nil while it is open).
func (c *Connection) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reason
}

// Close cancels every handler's ctx (their answers, -32800 unless they answer otherwise, are
// written while the transport is still open, for up to a second), fails every pending
// request, closes the transport and waits for every goroutine of the connection: a handler
// must return once its ctx ends. A handler must not call Close: it would wait for itself.
func (c *Connection) Close() error {
	c.shutdown(ErrConnectionClosed)
	<-c.closed
	return nil
}

func (c *Connection) shutdown(reason error) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.closing, c.reason = true, reason
	pending := c.pending
	c.pending = map[string]pendingCall{}
	c.mu.Unlock()
	c.stop(reason)
	for _, call := range pending {
		call.answer <- reply{err: reason}
	}
	go c.finish()
}

// finish closes the transport once the handlers have answered (or the grace is over), then
// marks the connection closed once every goroutine has ended.
func (c *Connection) finish() {
	answered := make(chan struct{})
	go func() {
		c.handlers.Wait()
		close(answered)
	}()
	grace := time.NewTimer(closeGrace)
	select {
	case <-answered:
	case <-grace.C:
	}
	grace.Stop()
	_ = c.transport.Close()
	<-answered
	c.workers.Wait()
	c.trace.close()
	close(c.closed)
}

func (c *Connection) readLoop() {
	defer c.workers.Done()
	defer close(c.notes)
	for {
		frame, err := c.transport.ReadFrame()
		var tooLong *FrameTooLong
		switch {
		case errors.As(err, &tooLong):
			c.dropped(tooLong)
		case err != nil:
			c.endOfInput()
			return
		default:
			c.route(frame)
		}
	}
}

func (c *Connection) route(line []byte) {
	read := readFrame(line)
	msg := read.msg
	switch read.kind {
	case frameBlank:
		return
	case frameUnparsable:
		c.write(errorFrame(nil, parseError(read.reason)))
	case frameInvalid:
		if read.answer {
			c.write(errorFrame(msg.ID, invalidRequestError(read.reason)))
		}
	case frameRequest:
		c.startRequest(msg)
	case frameNotification:
		// A connection speaks one dialect: another's cancel is an ordinary notification.
		if *msg.Method == c.dialect.Method {
			c.cancelled(msg.Params)
			return
		}
		c.mu.Lock()
		c.queued++
		c.mu.Unlock()
		c.queue(msg)
	case frameResponse:
		if msg.ID == nil {
			return // not one of our ids: nothing waits for it
		}
		if c.answerNow(msg) {
			c.answered(msg)
		} else {
			c.queue(msg) // after the notifications the peer sent before it
		}
	}
}

func (c *Connection) dropped(frame *FrameTooLong) {
	id, request := droppedFrame(frame.Head)
	if id == nil {
		return
	}
	data, _ := json.Marshal(map[string]int64{"limit": int64(frame.Limit), "size": frame.Size})
	failure := &Error{Code: InvalidRequest, Message: "Frame over the size limit", Data: data}
	if request {
		c.write(errorFrame(id, failure))
		return
	}
	c.answered(message{ID: id, Error: failure})
}

func (c *Connection) write(frame []byte) {
	_ = c.transport.WriteFrame(frame)
}

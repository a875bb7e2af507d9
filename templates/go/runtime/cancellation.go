package acp

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
)

// The three cancellation dialects: how one protocol family cancels a request. Layer:
// dispatcher (the connection's cancellation core reads one of them; the same policies as the
// Python runtime's cancellation.py and the TypeScript runtime's cancellation.ts).
//
//	dialect        notification             id key     the receiver answers the cancelled request?
//	ACP (default)  $/cancel_request         requestId  yes: a (partial) result or -32800
//	LSP            $/cancelRequest          id         yes: a (partial) result or -32800
//	MCP            notifications/cancelled  requestId  no ("Not send a response")
//
// A connection speaks one dialect (the Speaking option): another dialect's cancel notification
// is an ordinary notification, handed to its Handler.

// Dialect is how one protocol family cancels a request, both ways: the notification a caller
// sends when its request's ctx ends, and what the receiver of one does. ACP, LSP and MCP are
// the three the runtime knows.
type Dialect struct {
	// Name is the dialect's short name: "acp", "lsp" or "mcp".
	Name string
	// Method is the cancel notification's method.
	Method string
	// IDKey is the params member naming the cancelled request.
	IDKey string
	// AnswersCancelled says whether the receiver still answers a request it cancelled at the
	// peer's demand (and so whether the caller can wait for that answer).
	AnswersCancelled bool
	// ReasonKey is the params member carrying a human-readable reason ("" if the dialect has
	// none): a CancelReason.
	ReasonKey string
	// Uncancellable are the methods never cancelled, either way: no cancel is sent for them,
	// and one received for them is ignored.
	Uncancellable []string
	// SelfCancel is the error (its code and message; data stays the request's id) of a request
	// the receiver cancels on its own (not at the peer's demand: its timeout, its close), when
	// the dialect tells it from the peer's cancel; nil: -32800 like any.
	SelfCancel *Error
}

// ACP is ACP's $/cancel_request, the default. ACP v1 (cancellation.mdx): "The receiver MUST
// send one of these responses for the original request: A valid response with appropriate
// data (such as partial results or cancellation marker) / An error response with code
// `-32800`"; internal cancellation SHOULD "Send the same `-32800` (Cancelled) error response as
// if `$/cancel_request` was received".
var ACP = Dialect{
	Name:             "acp",
	Method:           CancelRequestMethod,
	IDKey:            "requestId",
	AnswersCancelled: true,
}

// LSP is the Language Server Protocol's $/cancelRequest {id}. LSP 3.17: "A request that got
// canceled still needs to return from the server and send a response back. It can not be left
// open / hanging."; before the InitializeResult "the client must not send any additional
// requests or notifications to the server", so `initialize` is never cancelled; and
// ServerCancelled (-32802): "The server cancelled the request. This error code should only be
// used for requests that explicitly support being server cancellable."
var LSP = Dialect{
	Name:             "lsp",
	Method:           "$/cancelRequest",
	IDKey:            "id",
	AnswersCancelled: true,
	Uncancellable:    []string{"initialize"},
	SelfCancel:       &Error{Code: ServerCancelled, Message: "Server cancelled"},
}

// MCP is the Model Context Protocol's notifications/cancelled {requestId, reason}. MCP
// 2025-11-25: receivers SHOULD "Not send a response for the cancelled request"; "The sender of
// the cancellation notification SHOULD ignore any response to the request that arrives
// afterward"; "The `initialize` request MUST NOT be cancelled by clients"; "Both parties SHOULD
// log cancellation reasons".
var MCP = Dialect{
	Name:             "mcp",
	Method:           "notifications/cancelled",
	IDKey:            "requestId",
	AnswersCancelled: false,
	ReasonKey:        "reason",
	Uncancellable:    []string{"initialize"},
}

// Speaking makes a connection speak d's cancellation both ways (ACP unless set): a request
// whose ctx ends sends d's cancel notification, and d's cancel notification from the peer
// cancels the ctx of the request it names. Another dialect's cancel notification is an
// ordinary notification, handed to the Handler.
func Speaking(d Dialect) Option {
	return func(c *Connection) {
		if d.Method != "" {
			c.dialect = d
		}
	}
}

// Dialect is the cancellation dialect the connection speaks.
func (c *Connection) Dialect() Dialect {
	return c.dialect
}

// CancelReason is a human-readable reason for a cancel, in a dialect that carries one (MCP's
// `reason`; "Both parties SHOULD log cancellation reasons"). A request sent with a ctx
// cancelled with a CancelReason as its cause (context.WithCancelCause) sends it; the ctx of a
// request the peer cancelled giving one ends with a cause that is both ErrCancelledByPeer and
// the CancelReason (errors.Is, errors.As).
type CancelReason string

func (r CancelReason) Error() string {
	return string(r)
}

// peerCancel is the cause of a request ctx the peer cancelled giving a reason.
type peerCancel struct {
	reason CancelReason
}

func (e *peerCancel) Error() string {
	return ErrCancelledByPeer.Error() + ": " + string(e.reason)
}

func (e *peerCancel) Unwrap() []error {
	return []error{ErrCancelledByPeer, e.reason}
}

// cancels says whether a request of method may be cancelled in d, either way.
func (d Dialect) cancels(method string) bool {
	return !slices.Contains(d.Uncancellable, method)
}

// cancelParams are the params of d's cancel notification for our request id: the id under
// d's key, and the reason the ctx's cause gives when d carries one. ACP's are
// {"requestId":<id>}.
func (d Dialect) cancelParams(id int64, cause error) map[string]any {
	params := map[string]any{d.IDKey: id}
	var reason CancelReason
	if d.ReasonKey != "" && errors.As(cause, &reason) {
		params[d.ReasonKey] = string(reason)
	}
	return params
}

// named is what a received cancel notification's params name: the id (nil when there is none)
// and the reason, if d has one and it is a string. The members are matched as encoding/json
// matches a struct's fields (as ACP's $/cancel_request was always read): the exact name, or one
// equal to it under case folding.
func (d Dialect) named(params json.RawMessage) (id json.RawMessage, reason CancelReason) {
	raw := reflect.TypeOf(json.RawMessage(nil))
	fields := []reflect.StructField{{Name: "ID", Type: raw, Tag: reflect.StructTag(`json:"` + d.IDKey + `"`)}}
	if d.ReasonKey != "" {
		fields = append(fields, reflect.StructField{Name: "Reason", Type: raw, Tag: reflect.StructTag(`json:"` + d.ReasonKey + `"`)})
	}
	value := reflect.New(reflect.StructOf(fields))
	if json.Unmarshal(params, value.Interface()) != nil {
		return nil, ""
	}
	id = value.Elem().Field(0).Interface().(json.RawMessage)
	if d.ReasonKey != "" {
		var text string
		if json.Unmarshal(value.Elem().Field(1).Interface().(json.RawMessage), &text) == nil {
			reason = CancelReason(text)
		}
	}
	return id, reason
}

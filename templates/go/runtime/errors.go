package acp

// Layer: dispatcher (JSON-RPC error objects and the one failure → error mapping).

import (
	"encoding/json"
	"errors"

	"acp-protocol-sdk/wire"
)

// The JSON-RPC error codes the runtime answers with.
const (
	ParseError     = -32700
	InvalidRequest = -32600
	MethodNotFound = -32601
	InvalidParams  = -32602
	InternalError  = -32603
	// RequestCancelled: ACP's "request cancellation uses -32800 from the range LSP reserves".
	RequestCancelled = -32800
	// ServerCancelled: LSP's "The server cancelled the request" (the LSP dialect's answer to a
	// request cancelled on the receiver's own, not at the peer's demand).
	ServerCancelled = -32802
	// UnsupportedVersion: ACP v2's "Unsupported protocol version"; a client also fails with it
	// when the agent answers initialize with another version (ACP v1 has no such code, and a v1
	// agent asked for 2 answers 1).
	UnsupportedVersion = -32022
)

// Error is a JSON-RPC error object: what a request fails with when the peer answers one, and
// what a handler returns to answer with one.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	text := e.Message + " (" + itoa(e.Code) + ")"
	if len(e.Data) > 0 {
		text += ": " + string(e.Data)
	}
	return text
}

// InvalidParamsError is -32602 for params that do not match the schema, with where (the JSON
// pointer, relative to the params) and what was expected in data.
func InvalidParamsError(err *wire.DecodeError) *Error {
	data, _ := wire.Marshal(struct {
		Pointer  string `json:"pointer"`
		Expected string `json:"expected"`
	}{err.Pointer(), err.Expected})
	return &Error{Code: InvalidParams, Message: "Invalid params", Data: data}
}

// ErrorFor is the error object a failed handler is answered with (the one mapping of it): an
// *Error as it is, a *wire.DecodeError -32602 with its pointer, anything else -32603 with the
// message in data.details.
func ErrorFor(err error) *Error {
	var rpcError *Error
	if errors.As(err, &rpcError) {
		return rpcError
	}
	var decodeError *wire.DecodeError
	if errors.As(err, &decodeError) {
		return InvalidParamsError(decodeError)
	}
	data, _ := wire.Marshal(struct {
		Details string `json:"details"`
	}{err.Error()})
	return &Error{Code: InternalError, Message: "Internal error", Data: data}
}

func itoa(n int) string {
	literal, _ := json.Marshal(n)
	return string(literal)
}

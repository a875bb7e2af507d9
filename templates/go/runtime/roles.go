package acp

import (
	"context"
	"encoding/json"
	"errors"

	"acp-protocol-sdk/wire"
)

// Answer decodes a request's params with the schema's checks and calls a typed handler method
// with them; params that do not match fail with their *wire.DecodeError (answered -32602 with
// its pointer). Layer: typed layer; each edition's generated role handlers answer every request
// with it, one path: a request a rule of the edition owns (marked by the connection's
// BehaviourEngine) is run by the engine once its params decode, any other is the call itself.
func Answer[P, R any](ctx context.Context, params json.RawMessage, decode wire.Decoder[P], method func(context.Context, P) (R, error)) (any, error) {
	var value P
	if err := decode(params, &value); err != nil {
		return nil, err
	}
	if r, ok := ctx.Value(ruledKey{}).(*ruled); ok {
		return r.engine.request(r.ctx, r.method, params, func(ctx context.Context) (any, error) {
			return method(ctx, value)
		})
	}
	return method(ctx, value)
}

// Take decodes a notification's params and calls a typed handler method with them; params that
// do not match are dropped (a notification is never answered).
func Take[P any](ctx context.Context, params json.RawMessage, decode wire.Decoder[P], method func(context.Context, P)) {
	var value P
	if decode(params, &value) == nil {
		method(ctx, value)
	}
}

// Call sends a request with typed params and decodes its result with the schema's checks.
func Call[P, R any](ctx context.Context, conn *Connection, method string, params P, decode wire.Decoder[R]) (R, error) {
	var result R
	raw, err := conn.Request(ctx, method, params)
	if err != nil {
		return result, err
	}
	err = decode(raw, &result)
	return result, err
}

// NotImplemented is a typed handler's answer for a method it does not implement: -32601.
func NotImplemented[R any](method string) (R, error) {
	var zero R
	return zero, MethodNotFoundError(method)
}

// NegotiatedAnswer is decode for the answer to the negotiation request (initialize), once its
// version field says the client's version: an agent of another version (a v1 agent asked for 2
// answers 1, in v1's shape) fails with one UnsupportedVersion error naming both versions, not
// with a field of this version's answer that the other version's lacks.
func NegotiatedAnswer[R any](decode wire.Decoder[R], negotiation *Negotiation) wire.Decoder[R] {
	return func(data []byte, out *R) error {
		var named map[string]json.RawMessage
		var answered int
		if json.Unmarshal(data, &named) == nil && json.Unmarshal(named[negotiation.Field], &answered) == nil && answered != negotiation.Version {
			message := "Unsupported protocol version: the client asked for version " + itoa(negotiation.Version) + ", the agent answered " + itoa(answered)
			return &Error{Code: UnsupportedVersion, Message: message}
		}
		return decode(data, out)
	}
}

// NamingVersions is err, or for an agent's UnsupportedVersion answer to initialize (data:
// {requested, supported}) the same error with a message naming both versions, as
// NegotiatedAnswer names them.
func NamingVersions(err error) error {
	var answer *Error
	if !errors.As(err, &answer) || answer.Code != UnsupportedVersion {
		return err
	}
	var data struct {
		Requested *int  `json:"requested"`
		Supported []int `json:"supported"`
	}
	if json.Unmarshal(answer.Data, &data) != nil || data.Requested == nil || len(data.Supported) == 0 {
		return err
	}
	supported := ""
	for i, version := range data.Supported {
		if i > 0 {
			supported += ", "
		}
		supported += itoa(version)
	}
	message := "Unsupported protocol version: the client asked for version " + itoa(*data.Requested) + ", the agent supports " + supported
	return &Error{Code: answer.Code, Message: message}
}

// UnknownTarget is the answer to cancelling a target the handler does not know (the
// unimplemented handler's: it knows none): the edition's code, the target named in data
// (CancelToolCallRequest: "the Agent responds with `-32602` if the tool call is unknown,
// already final, or not cancellable").
func UnknownTarget[R any](code int, field string, target any) (R, error) {
	var zero R
	data, _ := json.Marshal(map[string]any{field: target})
	return zero, &Error{Code: code, Message: "Unknown, final or not cancellable", Data: data}
}

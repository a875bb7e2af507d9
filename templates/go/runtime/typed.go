package acp

import (
	"context"
	"encoding/json"

	"acp-protocol-sdk/wire"
)

// Answer decodes a request's params with the schema's checks and calls a typed handler method
// with them; params that do not match fail with their *wire.DecodeError (answered -32602 with
// its pointer). Layer: typed layer; each edition's generated role handlers are made of these.
func Answer[P, R any](ctx context.Context, params json.RawMessage, decode wire.Decoder[P], method func(context.Context, P) (R, error)) (any, error) {
	var value P
	if err := decode(params, &value); err != nil {
		return nil, err
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

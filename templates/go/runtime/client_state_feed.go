package acp

import (
	"context"
	"encoding/json"

	"acp-protocol-sdk/wire"
)

// Layer: typed layer. How a client connection feeds its ClientState, with no code in the user's
// client: each edition's generated client handler decodes the messages the state table covers
// through Feeding (a request or notification the client receives: session/update,
// session/request_permission, fed once its params pass the schema's checks, before the user's
// method sees them), and its agent peer sends the requests whose sending or answer changes
// state through CallFeeding (v1's session/prompt starts a prompt turn when sent; session/new's
// result carries the new session's config options). The same feeding as the Python runtime's
// router and StateSender, and the TypeScript connection's.

// ClientStateOf is the client state of conn under table, kept by the connection's
// BehaviourEngine beside its session views (made on first use; one per connection and
// edition). A connection whose handler is no role's keeps none: each call is a new state.
func ClientStateOf(conn *Connection, table *StateTable) *ClientState {
	if e := engineOf(conn); e != nil {
		return e.clientState(table)
	}
	return NewClientState(table)
}

// Feeding is decode, then, once the params decode with the schema's checks, the message
// (method, its params) fed to the client state under table of the connection ctx belongs to.
// The generated client handler decodes the messages the state table covers with it.
func Feeding[P any](ctx context.Context, table *StateTable, method string, decode wire.Decoder[P]) wire.Decoder[P] {
	return func(data []byte, out *P) error {
		if err := decode(data, out); err != nil {
			return err
		}
		if conn := ConnectionOf(ctx); conn != nil {
			ClientStateOf(conn, table).feedWire(method, data, nil)
		}
		return nil
	}
}

// CallFeeding is Call for a request the state table covers: the table's turn request is fed to
// the client state when sent, and a request whose result the table covers is fed with its
// result once the result decodes with the schema's checks.
func CallFeeding[P, R any](ctx context.Context, conn *Connection, method string, params P, decode wire.Decoder[R], table *StateTable) (R, error) {
	var result R
	raw, err := paramsJSON(params)
	if err != nil {
		return result, err
	}
	state := ClientStateOf(conn, table)
	if method == table.Turn {
		state.feedWire(method, raw, nil)
	}
	answer, err := conn.Request(ctx, method, raw)
	if err != nil {
		return result, err
	}
	if err := decode(answer, &result); err != nil {
		return result, err
	}
	if table.route(method, true) != nil {
		state.feedWire(method, raw, answer)
	}
	return result, nil
}

// feedWire feeds the state message of method, its params and its result (nil: none), decoded
// as JSON values (JSONValues: numbers kept exact). Bytes that are not JSON change nothing.
func (c *ClientState) feedWire(method string, params, result json.RawMessage) {
	message := map[string]any{"method": method}
	for name, data := range map[string]json.RawMessage{"params": params, "result": result} {
		if data == nil {
			continue
		}
		value, err := JSONValues(data)
		if err != nil {
			return
		}
		message[name] = value
	}
	c.Feed(message)
}

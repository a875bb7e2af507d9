// Package acp is the runtime the generated ACP packages (v1, v1/unstable, v2, v2/unstable)
// share: the shape of their method tables and behaviour rules, and JSON-RPC errors. It knows no
// ACP method; each edition's package lists its own (Methods, Roles, Behaviour).
package acp

// Layer: typed layer (the shapes of the generated method tables).

import (
	"acp-protocol-sdk/wire"
)

// Kind says whether a method is a request (answered) or a notification.
type Kind string

const (
	// Request is answered with a result or an error.
	Request Kind = "request"
	// Notification is not answered.
	Notification Kind = "notification"
)

// Side is the side that handles a method (the schema's x-side).
type Side string

const (
	// SideAgent: agents handle it.
	SideAgent Side = "agent"
	// SideClient: clients handle it.
	SideClient Side = "client"
	// SideBoth: either side handles it.
	SideBoth Side = "both"
	// SideProtocol: every dispatcher handles it ($/cancel_request).
	SideProtocol Side = "protocol"
	// SideProxy: the proxy chain of the unstable schemas handles it.
	SideProxy Side = "proxy"
)

// Stability says whether a method or type is in the stable schema of its protocol.
type Stability string

const (
	// Stable: in the stable schema.
	Stable Stability = "stable"
	// Unstable: only in the unstable schema.
	Unstable Stability = "unstable"
)

// Method is one JSON-RPC method of an edition. A request and a notification of one name are
// two methods.
type Method struct {
	Name      string
	Kind      Kind
	Side      Side
	Stability Stability
	// Params and Result name the types by their schema names (Result is "" for a
	// notification).
	Params string
	Result string
	// DecodeParams and DecodeResult decode with the schema's checks and lenient rules
	// (DecodeResult is nil for a notification); the value is the params or result type.
	DecodeParams func(data []byte) (any, error)
	DecodeResult func(data []byte) (any, error)
}

// Role is one side of the protocol as data: the methods it handles, by name, and the side it
// talks to.
type Role struct {
	Name          string
	Peer          string
	Requests      []string
	Notifications []string
	// TurnRule is the role's entry of its edition's Behaviour.TurnRules (ACP's feature-level
	// cancellation of the requests it handles), or nil.
	TurnRule *TurnRule
}

// NamedCode is one of the schema's named error codes.
type NamedCode struct {
	Code int
	Name string
}

// JSONText is a JSON value written in the generated tables (a capability's value, a result).
type JSONText string

// DecodeAs adapts a generated decoder to a method table's DecodeParams and DecodeResult.
func DecodeAs[T any](dec wire.Decoder[T]) func(data []byte) (any, error) {
	return func(data []byte) (any, error) {
		value, err := wire.Decode(data, dec)
		if err != nil {
			return nil, err
		}
		return value, nil
	}
}

// Type is one named type of an edition: its schema name, its Go name and its decoder.
type Type struct {
	Schema string
	Go     string
	Decode func(data []byte) (any, error)
}

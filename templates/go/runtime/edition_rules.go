package acp

import (
	"context"
	"encoding/json"
	"errors"

	"acp-protocol-sdk/wire"
)

// Layer: typed layer. An edition's behaviour rules around the user's typed handler methods:
// each edition's generated role handler calls these for the methods its Behaviour names (the
// template picks them from the IR), so no code here asks which edition it serves.

// Negotiate answers the negotiation request (initialize): "the highest protocol version
// supported by the agent that is at or below the version requested by the client. If no such
// version exists, initialization fails with error code -32022" (an edition without that code
// answers its own version). The result's version is the SDK's to say, never the handler's echo
// of the request.
//
// Each of advertised (Advertised: the capabilities whose required methods the handler serves,
// by its own methods or the SDK's, such as session/list from a SessionStore) is set in the result where the handler left its path unset
// (a value the handler wrote, false and null included, is kept).
func Negotiate[P, R any](ctx context.Context, params json.RawMessage, decode wire.Decoder[P], method func(context.Context, P) (R, error), negotiation *Negotiation, advertised ...Capability) (any, error) {
	// The version first: a client of another version sends its version's params, and should
	// learn which versions meet, not which of our fields it lacks.
	var named map[string]json.RawMessage
	_ = json.Unmarshal(params, &named)
	asked := named[negotiation.Field]
	version, ok := negotiation.negotiate(asked)
	if !ok {
		data, _ := json.Marshal(map[string]any{"requested": asked, "supported": []int{negotiation.Version}})
		return nil, &Error{Code: negotiation.Unsupported, Message: "Unsupported protocol version", Data: data}
	}
	var value P
	if err := decode(params, &value); err != nil {
		return nil, err
	}
	result, err := method(ctx, value)
	if err != nil {
		return nil, err
	}
	answer, err := withMember(result, negotiation.Field, version)
	for _, capability := range advertised {
		if err == nil {
			answer, err = withCapability(answer, capability.Path, capability.Value)
		}
	}
	return answer, err
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

// withCapability is object with value set at path, unless the path is already set or passes
// through a member that is not an object (the handler's answer is kept as it wrote it).
func withCapability(object json.RawMessage, path []string, value JSONText) (json.RawMessage, error) {
	var members map[string]json.RawMessage
	if len(path) == 0 || json.Unmarshal(object, &members) != nil || members == nil {
		return object, nil
	}
	inner, set := members[path[0]]
	switch {
	case len(path) == 1 && set:
		return object, nil
	case len(path) == 1:
		members[path[0]] = json.RawMessage(value)
	default:
		if !set {
			inner = json.RawMessage("{}")
		}
		nested, err := withCapability(inner, path[1:], value)
		if err != nil {
			return nil, err
		}
		members[path[0]] = nested
	}
	return json.Marshal(members)
}

// negotiate is the version to answer a client that asked for asked (false: none fits). Anything
// but an integer below ours is answered with ours.
func (n *Negotiation) negotiate(asked json.RawMessage) (int, bool) {
	var wanted int64
	if len(asked) > 0 && asked[0] != '"' && json.Unmarshal(asked, &wanted) == nil && wanted < int64(n.Version) {
		return n.Version, n.Unsupported == 0
	}
	return n.Version, true
}

// withMember is result's JSON object with name set to value.
func withMember(result any, name string, value any) (json.RawMessage, error) {
	encoded, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(encoded, &members); err != nil || members == nil {
		return nil, errors.New("acp: the " + name + " result is not a JSON object")
	}
	if members[name], err = json.Marshal(value); err != nil {
		return nil, err
	}
	return json.Marshal(members)
}

// AnswerOutcome is Answer for a request the peer's $/cancel_request ends with a result, not
// -32800 (RequestPermissionOutcome: "the client answers a request the agent cancels with
// `$/cancel_request` with this outcome"): a handler that returns an error once the peer
// cancelled is answered outcome; one that returns a result anyway is answered with it.
func AnswerOutcome[P, R any](ctx context.Context, params json.RawMessage, decode wire.Decoder[P], method func(context.Context, P) (R, error), outcome JSONText) (any, error) {
	var value P
	if err := decode(params, &value); err != nil {
		return nil, err
	}
	result, err := method(ctx, value)
	if err != nil && errors.Is(context.Cause(ctx), ErrCancelledByPeer) {
		return json.RawMessage(outcome), nil
	}
	return result, err
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

// Advertised are b's capabilities whose required methods all pass serves: what an agent's
// initialize answer advertises (never a method that answers -32601).
func Advertised(b Behaviour, serves func(method string) bool) []Capability {
	var found []Capability
	for _, capability := range b.Capabilities {
		required := capability.Requires
		if len(required) == 0 {
			required = []string{capability.Method}
		}
		all := true
		for _, method := range required {
			all = all && serves(method)
		}
		if all {
			found = append(found, capability)
		}
	}
	return found
}

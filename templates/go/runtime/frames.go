package acp

// Layer: dispatcher (the frames a connection writes).

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"

	"acp-protocol-sdk/wire"
)

// CancelRequestMethod is ACP's protocol-level cancel: a notification from the side that sent a
// request, naming it by id.
const CancelRequestMethod = "$/cancel_request"

// message is any JSON-RPC frame, its members kept raw: an id is echoed exactly as it came.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  *string         `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// idKey is a request id as a map key: the same id written two ways ("a" and "\u0061", 0 and -0)
// is one key; an id ACP cannot use (a fraction, an exponent, beyond int64, null, true) has none.
func idKey(id json.RawMessage) (string, bool) {
	id = usableID(bytes.TrimSpace(id))
	if id == nil {
		return "", false
	}
	if id[0] == '"' {
		var text string
		if wire.String(id, &text) != nil {
			return "", false
		}
		return "s" + text, true
	}
	whole, err := strconv.ParseInt(string(id), 10, 64)
	if err != nil {
		return "", false
	}
	return "n" + strconv.FormatInt(whole, 10), true
}

// The frames of our requests, notifications and results are written by hand around the
// params or result's own JSON (encoding/json would check and compact those bytes once more),
// their members in the order the message type gives them: jsonrpc, id, method, params, result.

func requestFrame(id int64, method string, params any) ([]byte, error) {
	raw, err := paramsJSON(params)
	if err != nil {
		return nil, err
	}
	frame := append(make([]byte, 0, len(raw)+len(method)+48), `{"jsonrpc":"2.0","id":`...)
	frame = strconv.AppendInt(frame, id, 10)
	return withParams(frame, method, raw)
}

func notificationFrame(method string, params any) ([]byte, error) {
	raw, err := paramsJSON(params)
	if err != nil {
		return nil, err
	}
	return encodedNotificationFrame(method, raw)
}

// encodedNotificationFrame is a notification of params encoded already (as paramsJSON writes
// them: compact JSON).
func encodedNotificationFrame(method string, raw json.RawMessage) ([]byte, error) {
	return withParams(append(make([]byte, 0, len(raw)+len(method)+40), `{"jsonrpc":"2.0"`...), method, raw)
}

// withParams ends a frame with its method and, unless there are none, its params.
func withParams(frame []byte, method string, raw json.RawMessage) ([]byte, error) {
	name, err := wire.Marshal(method)
	if err != nil {
		return nil, err
	}
	frame = append(append(frame, `,"method":`...), name...)
	if len(raw) > 0 {
		frame = append(append(frame, `,"params":`...), raw...)
	}
	return append(frame, '}'), nil
}

// paramsJSON is params as compact JSON: a json.RawMessage checked and compacted (a frame is one
// line), anything else marshalled.
func paramsJSON(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	if raw, ok := params.(json.RawMessage); ok {
		if raw == nil {
			return nil, nil
		}
		return wire.MarshalRaw(raw)
	}
	return wire.Marshal(params)
}

// resultFrame answers the request id (echoed as it came) with result.
func resultFrame(id json.RawMessage, result any) ([]byte, error) {
	raw, err := wire.Marshal(result)
	if err != nil {
		return nil, err
	}
	frame := append(make([]byte, 0, len(raw)+len(id)+32), `{"jsonrpc":"2.0","id":`...)
	frame = append(append(append(frame, id...), `,"result":`...), raw...)
	return append(frame, '}'), nil
}

func errorFrame(id json.RawMessage, failure *Error) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	frame, err := wire.Marshal(message{JSONRPC: "2.0", ID: id, Error: failure})
	if err != nil { // data that is not JSON: the error without it
		frame, _ = wire.Marshal(message{JSONRPC: "2.0", ID: id, Error: &Error{Code: failure.Code, Message: failure.Message}})
	}
	return frame
}

var (
	headID     = regexp.MustCompile(`"id"\s*:\s*(-?[0-9][0-9.eE+-]*|"(?:[^"\\]|\\.)*")`)
	headMethod = regexp.MustCompile(`"method"\s*:`)
)

// droppedFrame says what the beginning of a frame over the limit shows: its id, and whether it
// is a request (it names a method) or a response.
func droppedFrame(head []byte) (id json.RawMessage, request bool) {
	if found := headID.FindSubmatch(head); found != nil {
		id = append(json.RawMessage(nil), found[1]...)
	}
	return id, headMethod.Match(head)
}

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

func requestFrame(id int64, method string, params any) ([]byte, error) {
	raw, err := paramsJSON(params)
	if err != nil {
		return nil, err
	}
	return wire.Marshal(message{JSONRPC: "2.0", ID: json.RawMessage(strconv.FormatInt(id, 10)), Method: &method, Params: raw})
}

func notificationFrame(method string, params any) ([]byte, error) {
	raw, err := paramsJSON(params)
	if err != nil {
		return nil, err
	}
	return wire.Marshal(message{JSONRPC: "2.0", Method: &method, Params: raw})
}

func paramsJSON(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	if raw, ok := params.(json.RawMessage); ok {
		return raw, nil
	}
	return wire.Marshal(params)
}

func resultFrame(id json.RawMessage, result any) ([]byte, error) {
	raw, err := wire.Marshal(result)
	if err != nil {
		return nil, err
	}
	return wire.Marshal(message{JSONRPC: "2.0", ID: id, Result: raw})
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

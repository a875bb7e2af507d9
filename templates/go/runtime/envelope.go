package acp

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"unicode/utf8"

	"acp-protocol-sdk/wire"
)

// What a line is, by JSON-RPC 2.0 §4 and §5: a request, a notification, a response, or not a
// message (and then whether it is answered). Layer: dispatcher. The same rules as the Python
// runtime's frames.py and the TypeScript runtime's envelope.ts, held to the one rule book every
// runtime passes (tests/wire/envelope_corpus.json). ACP does not use batches ("ACP does not use
// JSON-RPC batches", schema v2), so an array is an invalid request like any other value that is
// not an object.

type frameKind int

const (
	frameRequest frameKind = iota
	frameNotification
	frameResponse
	// frameInvalid is answered -32600 with the frame's usable id (null without one) when its
	// answer is set: "The Server MUST NOT reply to a Notification" (§4.1), so a malformed one
	// shaped as a notification is not.
	frameInvalid
	// frameUnparsable is "Invalid JSON was received by the server" (§5.1): -32700, null id.
	frameUnparsable
	// frameBlank is whitespace only: no message, no answer.
	frameBlank
)

// frame is one line read: its kind, its message (members kept raw) and, when it is not a
// message, why and whether it is answered.
type frame struct {
	kind   frameKind
	msg    message
	reason string
	answer bool
}

// integerID is an id ACP can use as an integer: RequestId is "an integer (format int64) or a
// string", so no fraction, no exponent, no leading zeros.
var integerID = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)$`)

// usableID is the id's text when ACP can use it (an int64 integer, or a string), else nil.
func usableID(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		return raw
	}
	if !integerID.Match(raw) {
		return nil
	}
	if _, err := strconv.ParseInt(string(raw), 10, 64); err != nil {
		return nil // beyond int64
	}
	return raw
}

func isBlank(line []byte) bool {
	return len(bytes.Trim(line, " \t\r\n\v\f")) == 0
}

func invalidFrame(id json.RawMessage, reason string, answer bool) frame {
	return frame{kind: frameInvalid, msg: message{ID: id}, reason: reason, answer: answer}
}

// readFrame says what one line is.
func readFrame(line []byte) frame {
	if isBlank(line) {
		return frame{kind: frameBlank}
	}
	// JSON text "MUST be encoded using UTF-8" (RFC 8259 §8.1): a line that is not is not JSON.
	if !utf8.Valid(line) {
		return frame{kind: frameUnparsable, reason: "the line is not UTF-8 text"}
	}
	// One pass checks the line and finds its members (slices of a copy the frame owns).
	members, err := wire.SplitObject(bytes.Clone(line))
	if err != nil && !json.Valid(line) {
		return frame{kind: frameUnparsable, reason: "the line is not JSON"}
	}
	if err != nil {
		return invalidFrame(nil, "a message must be a JSON object", true)
	}
	id, hasID := members["id"]
	method, hasMethod := members["method"]
	if !hasMethod {
		_, hasResult := members["result"]
		_, hasError := members["error"]
		if hasResult || hasError {
			// A response is never answered, whatever else is wrong with it.
			msg := message{ID: usableID(id), Result: members["result"]}
			if raw, ok := members["error"]; ok && !bytes.Equal(raw, []byte("null")) {
				var failure Error
				if json.Unmarshal(raw, &failure) == nil {
					msg.Error = &failure
				} else {
					msg.Error = &Error{Code: InternalError, Message: "a malformed error object"}
				}
			}
			if msg.Result == nil && msg.Error == nil {
				msg.Result = json.RawMessage("null")
			}
			return frame{kind: frameResponse, msg: msg}
		}
		return invalidFrame(usableID(id), "a message needs a method (call) or a result or error", true)
	}
	var usable json.RawMessage
	if hasID {
		if usable = usableID(id); usable == nil {
			return invalidFrame(nil, "a request id must be an integer (int64) or a string", true)
		}
	}
	var name string
	if method[0] != '"' || json.Unmarshal(method, &name) != nil {
		// Not a Notification either (its method is not a String): answered.
		return invalidFrame(usable, "the method must be a string", true)
	}
	var version string
	if raw, ok := members["jsonrpc"]; !ok || raw[0] != '"' || json.Unmarshal(raw, &version) != nil || version != "2.0" {
		return invalidFrame(usable, `the "jsonrpc" member must be exactly "2.0"`, hasID)
	}
	params := members["params"]
	if bytes.Equal(params, []byte("null")) {
		params = nil // null reads as absent (as in the Python runtime)
	}
	// §4.2: params "MUST be provided as a Structured value".
	if params != nil && params[0] != '{' && params[0] != '[' {
		return invalidFrame(usable, "params must be an object or an array", hasID)
	}
	msg := message{JSONRPC: "2.0", ID: usable, Method: &name, Params: params}
	if !hasID {
		return frame{kind: frameNotification, msg: msg}
	}
	return frame{kind: frameRequest, msg: msg}
}

// invalidRequestError is -32600 with the reason in data.
func invalidRequestError(reason string) *Error {
	data, _ := json.Marshal(map[string]string{"details": reason})
	return &Error{Code: InvalidRequest, Message: "Invalid Request", Data: data}
}

// parseError is -32700 with the reason in data.
func parseError(reason string) *Error {
	data, _ := json.Marshal(map[string]string{"details": reason})
	return &Error{Code: ParseError, Message: "Parse error", Data: data}
}

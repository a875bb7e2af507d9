package tests

// ACP v2's prompt retries, as the generated v2 agent answers them on the wire.
//
// PromptRequest.idempotencyKey: "The Client generates the key and sends the same key on every
// attempt for the same submission. [...] A retry of a recorded insertion returns the original
// `messageId` without inserting another message." and "When present, the value is an opaque,
// case-sensitive string of 1 to 255 characters. Agents MUST reject any other value with
// `-32602` (Invalid params) and MUST NOT treat it as omitted."; IdempotencyKey: "It is scoped to
// the session named by the request's `sessionId`."

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	v2 "acp-protocol-sdk/v2"
)

type message = map[string]json.RawMessage

// keyedPrompt is a session/prompt request whose idempotencyKey is key (JSON text; "": none).
func keyedPrompt(id int, session, text, key string) string {
	params := `{"sessionId":"` + session + `","prompt":[{"type":"text","text":"` + text + `"}]`
	if key != "" {
		params += `,"idempotencyKey":` + key
	}
	return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"session/prompt","params":` + params + `}}`
}

func quoted(key string) string {
	text, _ := json.Marshal(key)
	return string(text)
}

// framesUntil reads frames until one satisfies last (it included).
func framesUntil(peer *rawPeer, last func(message) bool) []message {
	peer.t.Helper()
	var read []message
	for {
		msg, _ := peer.next()
		read = append(read, msg)
		if last(msg) {
			return read
		}
	}
}

func isAnswer(id int) func(message) bool {
	return func(msg message) bool { return string(msg["id"]) == itoa(id) && msg["method"] == nil }
}

// sessionUpdate is a frame's session/update `update` (nil for another frame).
func sessionUpdate(msg message) map[string]json.RawMessage {
	var params struct {
		Update map[string]json.RawMessage `json:"update"`
	}
	if string(msg["method"]) != `"session/update"` || json.Unmarshal(msg["params"], &params) != nil {
		return nil
	}
	return params.Update
}

func isIdle(msg message) bool {
	u := sessionUpdate(msg)
	return string(u["sessionUpdate"]) == `"state_update"` && string(u["state"]) == `"idle"`
}

// echoed are the message ids of the user_message updates among frames: one per insertion.
func echoed(frames []message) []string {
	var ids []string
	for _, msg := range frames {
		if u := sessionUpdate(msg); string(u["sessionUpdate"]) == `"user_message"` {
			var id string
			_ = json.Unmarshal(u["messageId"], &id)
			ids = append(ids, id)
		}
	}
	return ids
}

// messageIDOf is the messageId of prompt id's answer among frames, or fails the test.
func messageIDOf(t *testing.T, frames []message, id int) string {
	t.Helper()
	for _, msg := range frames {
		if isAnswer(id)(msg) {
			var result struct {
				MessageID string `json:"messageId"`
			}
			if json.Unmarshal(msg["result"], &result) != nil || result.MessageID == "" {
				t.Fatalf("prompt %d is not answered with a message id: %v", id, msg)
			}
			return result.MessageID
		}
	}
	t.Fatalf("prompt %d is not answered", id)
	return ""
}

func TestTheRetryKeyIsDataPerEdition(t *testing.T) {
	if v1.Behaviour.Lifecycle.RetryKey != "" || v2.Behaviour.Lifecycle.RetryKey != "idempotencyKey" {
		t.Fatalf("v1 %q, v2 %q", v1.Behaviour.Lifecycle.RetryKey, v2.Behaviour.Lifecycle.RetryKey)
	}
}

func TestARetryOfARecordedInsertionIsAnsweredAtOnceWithItsMessageIDAndInsertsNothing(t *testing.T) {
	peer := v2Peer(t)
	peer.send(keyedPrompt(1, "s-1", "ask", `"submission-1"`))
	first := inserted(t, peer, 1)
	state(t, nextMsg(peer)) // requires_action
	asked := nextMsg(peer)  // the permission request: the first attempt's work still runs
	peer.send(keyedPrompt(2, "s-1", "ask", `"submission-1"`))
	retry, text := peer.next()
	if string(retry["id"]) != "2" || sameJSON([]byte(text), []byte(`{"jsonrpc":"2.0","id":2,"result":{"messageId":"`+first+`"}}`)) != "" {
		t.Fatalf("the retry is not answered at once with the original message id %s: %s", first, text)
	}
	peer.send(`{"jsonrpc":"2.0","id":` + string(asked["id"]) + `,"result":{"outcome":{"outcome":"cancelled"}}}`)
	frames := framesUntil(peer, isIdle)
	peer.quiet() // no second work, no second idle
	if ids := echoed(frames); len(ids) != 0 {
		t.Fatalf("the retry inserted %v", ids)
	}
}

func TestARecordedKeyOutlivesTheWorkAndIsForgottenWithTheSession(t *testing.T) {
	// "For a live-only message, it MUST recognize the key while the session stays active on a
	// connection."
	peer := v2Peer(t)
	peer.send(keyedPrompt(1, "s-1", "hello", `"k"`))
	first := inserted(t, peer, 1)
	if value, _ := state(t, nextMsg(peer)); value != "idle" {
		t.Fatalf("%s", value)
	}
	peer.send(keyedPrompt(2, "s-1", "hello", `"k"`))
	if id := messageIDOf(t, []message{nextMsg(peer)}, 2); id != first {
		t.Fatalf("a retry once the session is idle: %s, not %s", id, first)
	}
	peer.quiet()
	// Keys are case-sensitive: "K" is another submission.
	peer.send(keyedPrompt(3, "s-1", "hello", `"K"`))
	if other := inserted(t, peer, 3); other == first {
		t.Fatal("K took k's message id")
	}
	nextMsg(peer) // idle
	peer.send(`{"jsonrpc":"2.0","id":4,"method":"session/close","params":{"sessionId":"s-1"}}`)
	nextMsg(peer) // closed
	peer.send(keyedPrompt(5, "s-1", "hello", `"k"`))
	if again := inserted(t, peer, 5); again == first {
		t.Fatal("the closed session's key is still recognized")
	}
}

func TestARetryHeldBehindWorkAnswersTheInsertionMadeMeanwhile(t *testing.T) {
	// Both attempts wait behind other work; the one first in line is inserted when it ends, the
	// other, when its own turn comes, finds that insertion and inserts nothing.
	peer := v2Peer(t)
	peer.send(prompt(1, "ask"))
	ahead := inserted(t, peer, 1)
	state(t, nextMsg(peer)) // requires_action
	asked := nextMsg(peer)
	peer.send(keyedPrompt(2, "s-1", "hello", `"k"`))
	peer.send(keyedPrompt(3, "s-1", "hello", `"k"`))
	peer.quiet() // both held
	peer.send(`{"jsonrpc":"2.0","id":` + string(asked["id"]) + `,"result":{"outcome":{"outcome":"cancelled"}}}`)
	answered, idles := 0, 0
	frames := framesUntil(peer, func(msg message) bool {
		switch {
		case isAnswer(2)(msg) || isAnswer(3)(msg):
			answered++
		case isIdle(msg):
			idles++ // the work ahead's, then the insertion's
		}
		return answered == 2 && idles == 2
	})
	peer.quiet()
	id := messageIDOf(t, frames, 2)
	if other := messageIDOf(t, frames, 3); other != id || id == ahead {
		t.Fatalf("the attempts are answered %s and %s (the work ahead: %s)", id, other, ahead)
	}
	if ids := echoed(frames); !slices.Equal(ids, []string{id}) {
		t.Fatalf("inserted %v, not %s once", ids, id)
	}
}

func TestTheSameKeyInAnotherSessionIsAnotherSubmission(t *testing.T) {
	peer := v2Peer(t)
	peer.send(keyedPrompt(1, "s-1", "here", `"k"`))
	frames := framesUntil(peer, isIdle)
	peer.send(keyedPrompt(2, "s-2", "there", `"k"`))
	frames = append(frames, framesUntil(peer, isIdle)...)
	first, second := messageIDOf(t, frames, 1), messageIDOf(t, frames, 2)
	if first == second || !slices.Equal(echoed(frames), []string{first, second}) {
		t.Fatalf("%s %s, inserted %v", first, second, echoed(frames))
	}
}

func TestANullKeyIsNoKey(t *testing.T) {
	// "Omitted and `null` are equivalent and mean no key. The Agent then handles the prompt
	// without duplicate detection."
	peer := v2Peer(t)
	peer.send(keyedPrompt(1, "s-1", "once", `null`))
	frames := framesUntil(peer, isIdle)
	peer.send(keyedPrompt(2, "s-1", "once", `null`))
	frames = append(frames, framesUntil(peer, isIdle)...)
	if ids := echoed(frames); len(ids) != 2 || ids[0] == ids[1] {
		t.Fatalf("inserted %v", ids)
	}
}

func TestAKeyOutOfRangeIsInvalidParamsAndInsertsNothing(t *testing.T) {
	for name, key := range map[string]string{
		"empty":          `""`,
		"256 characters": quoted(strings.Repeat("k", 256)),
		"256 emoji":      quoted(strings.Repeat("\U0001F600", 256)),
		"256 escaped":    `"` + strings.Repeat(`\ud83d\ude00`, 256) + `"`,
		"a number":       `7`,
		"an array":       `["k"]`,
	} {
		t.Run(name, func(t *testing.T) {
			peer := v2Peer(t)
			peer.send(keyedPrompt(1, "s-1", "never inserted", key))
			if code, _ := errorCode(t, nextMsg(peer)); code != acp.InvalidParams {
				t.Fatalf("%d", code)
			}
			peer.quiet()
		})
	}
}

func TestAKeyOf1To255CharactersIsAccepted(t *testing.T) {
	// Characters, as JSON Schema counts them: 255 emoji are 510 UTF-16 units, 1,020 bytes.
	for name, key := range map[string]string{
		"255 characters": quoted(strings.Repeat("k", 255)),
		"255 emoji":      quoted(strings.Repeat("\U0001F600", 255)),
		"255 escaped":    `"` + strings.Repeat(`\ud83d\ude00`, 255) + `"`,
		"one":            `"K"`,
	} {
		t.Run(name, func(t *testing.T) {
			peer := v2Peer(t)
			peer.send(keyedPrompt(1, "s-1", "accepted", key))
			inserted(t, peer, 1)
		})
	}
}

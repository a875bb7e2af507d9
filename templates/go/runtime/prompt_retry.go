package acp

import "encoding/json"

// Layer: typed layer. Prompt retries where the prompt is answered at insertion (ACP v2), agent
// side: the foreground's bookkeeping of the prompt's retry key (the lifecycle's RetryKey,
// PromptRequest.idempotencyKey), as the schema's descriptions ask:
//
//   - "The Client generates the key and sends the same key on every attempt for the same
//     submission. [...] A retry of a recorded insertion returns the original `messageId`
//     without inserting another message." Each insertion that carried a key records it in its
//     session; a retry of it is answered with the recorded message id at once, even while that
//     insertion's work still runs: nothing is held, echoed, reported or run. A retry held
//     behind other work, whose attempt it repeats was inserted while it was held, is answered
//     so when its turn comes, and the session goes on to the next held prompt.
//   - "For a live-only message, it MUST recognize the key while the session stays active on a
//     connection." The keys are kept while the session is idle too, until session/close (or
//     the connection's end) forgets the session.
//   - IdempotencyKey: "It is scoped to the session named by the request's `sessionId`." The
//     same key in another session is another submission.
//   - "Omitted and `null` are equivalent and mean no key. The Agent then handles the prompt
//     without duplicate detection."
//   - "When present, the value is an opaque, case-sensitive string of 1 to 255 characters.
//     Agents MUST reject any other value with `-32602` (Invalid params) and MUST NOT treat it
//     as omitted." The schema's check (wire.StringLength) answers any other value -32602 while
//     the params decode, before the prompt reaches the foreground: "" is never a key here.

// retryKeyOf is the retry key of a prompt's params (its members): "" when the lifecycle has no
// retry key or the prompt carries none (omitted or null).
func retryKeyOf(life *PromptLifecycle, params map[string]json.RawMessage) string {
	if life.RetryKey == "" {
		return ""
	}
	var key *string
	if json.Unmarshal(params[life.RetryKey], &key) != nil || key == nil {
		return ""
	}
	return *key
}

// recorded is the message id of the session's insertion that carried key, if one did (f.mu
// held).
func (s *foregroundSession) recorded(key string) (string, bool) {
	if key == "" {
		return "", false
	}
	id, ok := s.inserted[key]
	return id, ok
}

// record records the key of an insertion, its work w (f.mu held; key "": none).
func (s *foregroundSession) record(key string, w *work) {
	if key == "" {
		return
	}
	if s.inserted == nil {
		s.inserted = map[string]string{}
	}
	s.inserted[key] = w.messageID
}

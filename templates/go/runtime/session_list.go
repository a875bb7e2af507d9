package acp

// Layer: typed layer (the generated agent handler answers session/list with a SessionStore's
// ListSessions). The listing of the store (session_store.go): its sessions in the order they were
// recorded, a page at a time, as the Python and TypeScript runtimes list theirs. "Cursor-based
// pagination": nextCursor is "present if there are more results", an opaque token (here the
// position the next page continues after, as base64url JSON); a cursor this store did not make
// is -32602 "Invalid cursor", as the Python and TypeScript stores answer.

import (
	"encoding/base64"
	"encoding/json"
	"maps"
)

// ListedSession is one session of a session/list answer, in wire form.
type ListedSession struct {
	SessionID string                     `json:"sessionId"`
	Cwd       string                     `json:"cwd"`
	Title     *string                    `json:"title,omitempty"`
	UpdatedAt *string                    `json:"updatedAt,omitempty"`
	Meta      map[string]json.RawMessage `json:"_meta,omitempty"`
}

// SessionPage is one page of session/list, and nextCursor when more follow.
type SessionPage struct {
	Sessions   []ListedSession `json:"sessions"`
	NextCursor string          `json:"nextCursor,omitempty"`
}

// ListSessions is one page of session/list (cwd not "": only the sessions there), after cursor
// ("": from the first); -32602 for a cursor this store did not make.
func (s *SessionStore) ListSessions(cwd, cursor string) (SessionPage, error) {
	after, err := decodeCursor(cursor)
	if err != nil {
		return SessionPage{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	size := s.PageSize
	if size <= 0 {
		size = 50
	}
	page := SessionPage{Sessions: []ListedSession{}}
	for position := after + 1; position <= len(s.order); position++ {
		record := s.records[s.order[position-1]]
		if cwd != "" && record.Cwd != cwd {
			continue
		}
		if len(page.Sessions) == size {
			page.NextCursor = encodeCursor(position - 1)
			break
		}
		page.Sessions = append(page.Sessions, ListedSession{record.SessionID, record.Cwd, record.Title, record.UpdatedAt, maps.Clone(record.Meta)})
	}
	return page, nil
}

func encodeCursor(position int) string {
	text, _ := json.Marshal(map[string]int{"after": position})
	return base64.RawURLEncoding.EncodeToString(text)
}

// decodeCursor is the position a cursor continues after; -32602 for a cursor this store did not make.
func decodeCursor(text string) (int, error) {
	if text == "" {
		return 0, nil
	}
	var parsed struct {
		After *int `json:"after"`
	}
	decoded, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil || json.Unmarshal(decoded, &parsed) != nil || parsed.After == nil || *parsed.After < 0 {
		data, _ := json.Marshal(map[string]string{"cursor": text})
		return 0, &Error{Code: InvalidParams, Message: "Invalid cursor", Data: data}
	}
	return *parsed.After, nil
}

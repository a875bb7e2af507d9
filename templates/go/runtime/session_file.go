package acp

// Layer: typed layer (a SessionStore kept in a file: OpenSessionFile; the file format of the
// TypeScript runtime's FileSessionStore, session_file.ts, so one runtime reads another's file).
//
// "Nothing acknowledged is ever lost": a change returns only once it is on disk, whatever
// moment the process dies at. The whole store is written to a temporary file beside the store's
// file, flushed to disk (fsync), renamed over it (an atomic replace on POSIX file systems) and
// the folder flushed too, so the file is always either the old store or the new one, never a
// mix. The write happens under the store's lock: a change waits for the one before it to be on
// disk (reads wait too). A write that fails leaves memory as it was and the store refuses every
// later change (Err). One process writes a store file at a time, as in TypeScript: a second one
// would overwrite the first's changes with its own snapshot (no lock is taken). The updates each
// session sent (what session/load replays) are on disk too, in a log beside the file
// (<path>.updates, session_file_updates.go): appended, not the whole store written per turn.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// SessionFileFormat is the format marker a store file carries; any other file is refused.
const SessionFileFormat = "acp-codegen-session-store/json-1"

// storeFile is a store file: {"format", "next", "sessions": [[position, record], …]}.
type storeFile struct {
	Format   string           `json:"format"`
	Next     int              `json:"next"`
	Sessions []storedPosition `json:"sessions"`
}

// storedPosition is one [position, record] pair (position: the order of recording, from 1).
type storedPosition struct {
	position int
	record   storedRecord
}

// storedRecord is a SessionRecord as TypeScript writes one (null: not set, or cleared).
type storedRecord struct {
	SessionID *string                    `json:"sessionId"`
	Cwd       *string                    `json:"cwd"`
	Title     *string                    `json:"title"`
	UpdatedAt *string                    `json:"updatedAt"`
	Meta      map[string]json.RawMessage `json:"meta"`
}

func (p storedPosition) MarshalJSON() ([]byte, error) {
	var text bytes.Buffer
	encoder := json.NewEncoder(&text)
	encoder.SetEscapeHTML(false) // "<" as JSON.stringify writes it, not "\u003c"
	err := encoder.Encode([]any{p.position, p.record})
	return bytes.TrimSuffix(text.Bytes(), []byte("\n")), err
}

func (p *storedPosition) UnmarshalJSON(data []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(data, &pair); err != nil || len(pair) != 2 {
		return errors.New("a session is not a [position, record] pair")
	}
	if err := json.Unmarshal(pair[0], &p.position); err != nil {
		return errors.New("a position is not an integer")
	}
	if err := json.Unmarshal(pair[1], &p.record); err != nil || p.record.SessionID == nil || p.record.Cwd == nil {
		return fmt.Errorf("session %d is not a record of sessionId, cwd, title, updatedAt and meta", p.position)
	}
	return nil
}

// OpenSessionFile is the store kept in path: the sessions it holds, or none when there is no
// such file (it is written on the first change). A file that is not a store of
// SessionFileFormat is refused untouched, with one error naming it. Set the store's fields
// before its first use, as for a store in memory.
func OpenSessionFile(path string) (*SessionStore, error) {
	store := &SessionStore{commit: func(snapshot storeFile) error { return writeStore(path, snapshot) }}
	history, log, err := readUpdateLog(path + ".updates")
	if err != nil {
		return nil, fmt.Errorf("acp: %w", err)
	}
	store.history, store.updates = history, log
	text, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if info, err := os.Stat(filepath.Dir(path)); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("acp: session store %s: its folder does not exist", path)
		}
		return store, nil
	}
	if err != nil {
		return nil, fmt.Errorf("acp: session store %s: %w", path, err)
	}
	if err := store.restore(text); err != nil {
		return nil, fmt.Errorf("acp: %s is not a session store of format %s (%v)", path, SessionFileFormat, err)
	}
	return store, nil
}

// Close closes the history log a store kept in a file holds open (nil in memory). The store can
// still be used: its next AppendUpdates opens the log again.
func (s *SessionStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.updates == nil {
		return nil
	}
	return s.updates.close()
}

// Err is the write that failed, for a store kept in a file (nil while every change is on disk;
// always nil in memory). Memory stays as the file is, and from then on the store refuses every
// change: Create and NewSession return the zero SessionRecord, Change this error, ApplyUpdate
// false (Get and ListSessions go on). Reopen the file to go on after the cause is fixed.
func (s *SessionStore) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// persist keeps the change just made in memory for good, or undoes it and returns why: a change
// "is acknowledged only once it is on disk". Called with the lock held.
func (s *SessionStore) persist(undo func()) error {
	if s.commit == nil {
		return nil
	}
	if err := s.commit(s.snapshot()); err != nil {
		undo()
		s.failed = err
		return err
	}
	return nil
}

// forget drops the session recorded last (id): the undo of a recording that was not written.
func (s *SessionStore) forget(id string) {
	delete(s.records, id)
	s.order = s.order[:len(s.order)-1]
}

// snapshot is everything held, as the file keeps it. Called with the lock held.
func (s *SessionStore) snapshot() storeFile {
	file := storeFile{Format: SessionFileFormat, Next: len(s.order) + 1, Sessions: make([]storedPosition, len(s.order))}
	for index, id := range s.order {
		record := s.records[id]
		file.Sessions[index] = storedPosition{index + 1, storedRecord{&record.SessionID, &record.Cwd, record.Title, record.UpdatedAt, record.Meta}}
	}
	return file
}

// restore takes the sessions of a store file's text: positions 1, 2, … in order and next after
// the last (what every runtime writes; a store in Go keeps a session's position as its index).
func (s *SessionStore) restore(text []byte) error {
	var head struct {
		Format *string `json:"format"`
	}
	if json.Unmarshal(text, &head) != nil {
		return errors.New("not a JSON object")
	}
	if head.Format == nil {
		return errors.New("no format member")
	}
	if *head.Format != SessionFileFormat {
		return fmt.Errorf("its format is %s", quote(*head.Format))
	}
	var file storeFile
	var wrongType *json.UnmarshalTypeError
	if err := json.Unmarshal(text, &file); errors.As(err, &wrongType) {
		return fmt.Errorf("%s is a JSON %s", wrongType.Field, wrongType.Value)
	} else if err != nil {
		return err
	}
	if file.Sessions == nil || file.Next != len(file.Sessions)+1 {
		return fmt.Errorf("next is %d for %d sessions", file.Next, len(file.Sessions))
	}
	s.records = make(map[string]*SessionRecord, len(file.Sessions))
	for index, stored := range file.Sessions {
		record := stored.record
		if stored.position != index+1 {
			return fmt.Errorf("session %d has position %d", index+1, stored.position)
		}
		if _, taken := s.records[*record.SessionID]; taken {
			return fmt.Errorf("session %s recorded twice", quote(*record.SessionID))
		}
		info := SessionInfo{Title: record.Title, UpdatedAt: record.UpdatedAt, Meta: record.Meta}
		s.records[*record.SessionID] = &SessionRecord{SessionID: *record.SessionID, Cwd: *record.Cwd, SessionInfo: info}
		s.order = append(s.order, *record.SessionID)
	}
	return nil
}

// writeStore replaces path by snapshot atomically and durably: a temporary file beside it, fsync,
// rename, fsync of the folder ("the rename itself is on disk", session_file.ts).
func writeStore(path string, snapshot storeFile) error {
	var text bytes.Buffer
	encoder := json.NewEncoder(&text) // one line and "\n", as JSON.stringify(…) + "\n"
	encoder.SetEscapeHTML(false)      // storedPosition's too
	if err := encoder.Encode(snapshot); err != nil {
		return fmt.Errorf("acp: session store %s: %w", path, err)
	}
	folder, name := filepath.Split(path)
	if folder == "" {
		folder = "."
	}
	if err := replace(folder, name, text.String(), 0o600); err != nil {
		return fmt.Errorf("acp: session store %s: cannot write it (%w); the change is not kept", path, err)
	}
	if err := syncFolder(folder); err != nil {
		return fmt.Errorf("acp: session store %s: cannot flush its folder (%w); the change may not be kept", path, err)
	}
	return nil
}

// syncFolder flushes a folder's entries (the rename) to disk. Windows cannot open a folder for
// that; its file systems journal a rename themselves.
func syncFolder(folder string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	dir, err := os.Open(folder)
	if err != nil {
		return err
	}
	err = dir.Sync()
	if closeErr := dir.Close(); err == nil {
		err = closeErr
	}
	return err
}

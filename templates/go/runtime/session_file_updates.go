package acp

// Layer: typed layer (the history of a store kept in a file, OpenSessionFile: the log beside the
// store's file, <path>.updates; the format of the TypeScript runtime's session_file_updates.ts, so
// one runtime reads another's log).
//
// "Nothing acknowledged is ever lost": a turn's updates are in the store before its answer, so a
// store kept in a file keeps them on disk, and a process that opens the file again (a restart)
// replays what the one before it sent. The store's file is written whole on each change; a
// history is far larger and grows by every turn, so it is a log: JSON Lines, a format line first
// (SessionUpdatesFormat), then one [sessionId, seq, update] per update (seq from 1 per session,
// as the SQLite and PostgreSQL tables number them), appended and flushed to disk (fsync) before
// AppendUpdates returns. A line the process was writing when it died (no newline yet) was never
// acknowledged: it is cut off when the log is opened. Once the log holds more than twice what the
// sessions keep, it is written again with only what they keep (a temporary file, fsync, rename),
// so it stays bounded.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SessionUpdatesFormat is the format line a history log starts with; any other file is refused.
const SessionUpdatesFormat = "acp-codegen-session-updates/jsonl-1"

// updateLogSlack is the lines a log may hold beyond twice what is kept before it is written again.
const updateLogSlack = 64

// updateLog is the open history log of a store file. Used with the store's lock held.
type updateLog struct {
	path  string
	file  *os.File // opened for appending at the first append
	lines int      // lines in the file, its format line included
}

// readUpdateLog is every session's history in the log at path (none when there is no such file)
// and the log; a last line with no newline is cut off the file. A file that is not such a log is
// an error naming it (and the line).
func readUpdateLog(path string) (map[string]*sessionHistory, *updateLog, error) {
	histories := map[string]*sessionHistory{}
	log := &updateLog{path: path}
	text, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return histories, log, nil
	}
	if err != nil {
		return nil, nil, err
	}
	end := bytes.LastIndexByte(text, '\n') + 1
	if end < len(text) {
		if err := os.Truncate(path, int64(end)); err != nil {
			return nil, nil, err
		}
	}
	lines := bytes.Split(text[:end], []byte("\n"))
	lines = lines[:len(lines)-1]
	if len(lines) == 0 {
		return histories, log, nil
	}
	var head struct {
		Format string `json:"format"`
	}
	if json.Unmarshal(lines[0], &head) != nil || head.Format != SessionUpdatesFormat {
		return nil, nil, fmt.Errorf("%s is not a session history of format %s", path, SessionUpdatesFormat)
	}
	for index, line := range lines[1:] {
		var entry []json.RawMessage
		var id string
		var seq int
		if json.Unmarshal(line, &entry) != nil || len(entry) != 3 || json.Unmarshal(entry[0], &id) != nil || json.Unmarshal(entry[1], &seq) != nil || seq < 1 {
			return nil, nil, fmt.Errorf("%s:%d: not a [sessionId, seq, update] line", path, index+2)
		}
		history := histories[id]
		if history == nil {
			// A session's first line may come after a rewrite that dropped its older updates.
			history = &sessionHistory{sent: seq - 1}
			histories[id] = history
		}
		if seq != history.sent+1 {
			return nil, nil, fmt.Errorf("%s:%d: update %d of session %s follows update %d", path, index+2, seq, id, history.sent)
		}
		history.sent = seq
		history.kept = append(history.kept, entry[2])
	}
	log.lines = len(lines)
	return histories, log, nil
}

// append writes the updates first, first+1, … of session id and flushes them to disk.
func (l *updateLog) append(id string, first int, updates []json.RawMessage) error {
	if l.file == nil {
		file, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		if info, err := file.Stat(); err != nil {
			_ = file.Close()
			return err
		} else if info.Size() == 0 {
			l.lines = 0
		}
		l.file = file
	}
	var text bytes.Buffer
	if l.lines == 0 {
		text.WriteString(`{"format":"` + SessionUpdatesFormat + `"}` + "\n")
	}
	for index, update := range updates {
		writeEntry(&text, id, first+index, update)
	}
	if _, err := l.file.Write(text.Bytes()); err != nil {
		return err
	}
	if err := l.file.Sync(); err != nil {
		return err
	}
	l.lines = max(l.lines, 1) + len(updates)
	return nil
}

// bound writes the log again with each session's last limit updates (their numbers kept) once it
// holds more than twice that.
func (l *updateLog) bound(histories map[string]*sessionHistory, limit int) error {
	held := 1
	for _, history := range histories {
		held += min(len(history.kept), limit)
	}
	if l.lines <= 2*held+updateLogSlack {
		return nil
	}
	var text bytes.Buffer
	text.WriteString(`{"format":"` + SessionUpdatesFormat + `"}` + "\n")
	for id, history := range histories {
		kept := history.kept[max(len(history.kept)-limit, 0):]
		first := history.sent - len(kept) + 1
		for index, update := range kept {
			writeEntry(&text, id, first+index, update)
		}
	}
	folder, name := filepath.Split(l.path)
	if folder == "" {
		folder = "."
	}
	if err := replace(folder, name, text.String(), 0o600); err != nil {
		return err
	}
	if err := syncFolder(folder); err != nil {
		return err
	}
	_ = l.close()
	l.lines = held
	return nil
}

// close closes the log's file (a later append opens it again).
func (l *updateLog) close() error {
	if l.file == nil {
		return nil
	}
	err := l.file.Close()
	l.file = nil
	return err
}

func writeEntry(text *bytes.Buffer, id string, seq int, update json.RawMessage) {
	quoted, _ := json.Marshal(id)
	text.WriteByte('[')
	text.Write(quoted)
	fmt.Fprintf(text, ",%d,", seq)
	var compact bytes.Buffer
	if json.Compact(&compact, update) == nil {
		text.Write(compact.Bytes())
	} else {
		text.WriteString("null")
	}
	text.WriteString("]\n")
}

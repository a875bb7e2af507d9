package acp

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// TraceEnvironment names the file a connection records itself into (wire_trace.go): every
// frame read and written, in the format of Python's `acp_protocol.trace` (docs/trace.md). Not
// W3C trace context.
//
// Layer: between the transport and the dispatcher (a Transport wrapping the connection's own).
// Directions are the recorder's: "sent" is toward the agent. "Clients MUST initialize the
// connection" (ACP initialization.mdx), so the side that writes the first frame is the client
// (its writes are "sent") and the side that reads first the agent (its writes "received"); the
// header names the side. "{pid}" and "{n}" in the name become the process id and the
// connection's number in this process; without "{n}" the second connection writes the name
// with ".2" before its extension, and so on. A file that cannot be opened is one warning line on
// stderr, and the connection goes on unrecorded. The wire never waits for the file: records
// are collected in memory and written by a goroutine of their own.
const TraceEnvironment = "ACP_TRACE"

var traceNumbers atomic.Int64

// tracePath is the file of this process's connection number (1-based) under template.
func tracePath(template string, number int64, pid int) string {
	path := strings.ReplaceAll(template, "{pid}", strconv.Itoa(pid))
	path = strings.ReplaceAll(path, "{n}", strconv.FormatInt(number, 10))
	if number > 1 && !strings.Contains(template, "{n}") {
		extension := filepath.Ext(path)
		path = strings.TrimSuffix(path, extension) + "." + strconv.FormatInt(number, 10) + extension
	}
	return path
}

// traceFromEnvironment wraps t in a recording when ACP_TRACE is set; t itself otherwise.
func traceFromEnvironment(t Transport) (Transport, *wireTrace) {
	template := os.Getenv(TraceEnvironment)
	if template == "" {
		return t, nil
	}
	path := tracePath(template, traceNumbers.Add(1), os.Getpid())
	file, err := os.Create(path)
	if err != nil {
		var pathError *os.PathError
		if errors.As(err, &pathError) {
			err = pathError.Err
		}
		// "no such file or directory": the system's words, capitalized as Python prints them.
		reason := err.Error()
		reason = strings.ToUpper(reason[:1]) + reason[1:]
		fmt.Fprintf(os.Stderr, "acp: %s: cannot write %s: %s; the connection goes on unrecorded\n", TraceEnvironment, path, reason)
		return t, nil
	}
	trace := &wireTrace{inner: t, file: file, started: time.Now(), wake: make(chan struct{}, 1), done: make(chan struct{})}
	trace.header = map[string]any{
		"acpTrace": 2, // the recording format's version: Python's acp_protocol.trace.frames.FORMAT_VERSION
		"program":  os.Args,
		"started":  trace.started.UTC().Format("2006-01-02T15:04:05.000+00:00"),
		"pid":      os.Getpid(),
	}
	go trace.writer()
	return trace, trace
}

// wireTrace is a Transport recording what passes through it.
type wireTrace struct {
	inner   Transport
	started time.Time
	header  map[string]any
	// order holds a write and its record together: the recording has the wire's order.
	order sync.Mutex

	mu      sync.Mutex
	side    string // "" until the first frame
	pending []byte
	closed  bool
	file    *os.File
	wake    chan struct{}
	done    chan struct{}
}

func (w *wireTrace) ReadFrame() ([]byte, error) {
	frame, err := w.inner.ReadFrame()
	var tooLong *FrameTooLong
	switch {
	case err == nil:
		w.record(frame, false, 0)
	case errors.As(err, &tooLong):
		w.record(tooLong.Head, false, tooLong.Size)
	}
	return frame, err
}

func (w *wireTrace) WriteFrame(frame []byte) error {
	w.order.Lock()
	defer w.order.Unlock()
	err := w.inner.WriteFrame(frame)
	if err == nil {
		w.record(frame, true, 0)
	}
	return err
}

func (w *wireTrace) Close() error {
	return w.inner.Close()
}

// record adds one frame: written by this side (outgoing) or read; dropped > 0: a frame over
// the limit, frame its head.
func (w *wireTrace) record(frame []byte, outgoing bool, dropped int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if w.side == "" {
		w.side = "agent"
		if outgoing {
			w.side = "client"
		}
		w.appendHeader()
	}
	direction := "sent"
	if outgoing != (w.side == "client") {
		direction = "received"
	}
	b := append(w.pending, `{"t":`...)
	b = strconv.AppendFloat(b, time.Since(w.started).Seconds(), 'f', 4, 64)
	b = append(b, `,"dir":"`...)
	b = append(b, direction...)
	switch {
	case dropped == 0 && utf8.Valid(frame) && json.Valid(frame) && bytes.IndexByte(frame, '\r') < 0:
		b = append(append(append(b, `","json":`...), frame...), "}\n"...)
	default:
		b = append(b, `","raw":`...)
		b = append(b, rawText(frame)...)
		if dropped > 0 {
			b = append(append(b, `,"size":`...), strconv.FormatInt(dropped, 10)...)
		}
		b = append(b, "}\n"...)
	}
	w.pending = b
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// rawText is a line that is not JSON as a JSON string: its text, or "hex:…" when it is not
// UTF-8 (as Python's acp_protocol.trace.frames.raw_text).
func rawText(line []byte) []byte {
	text := string(line)
	if !utf8.Valid(line) {
		text = "hex:" + hex.EncodeToString(line)
	}
	encoded, _ := json.Marshal(text)
	return encoded
}

func (w *wireTrace) appendHeader() {
	if w.side != "" {
		w.header["side"] = w.side
	} else {
		w.header["side"] = nil
	}
	header, _ := json.Marshal(w.header)
	w.pending = append(append(w.pending, header...), '\n')
}

// writer writes what was recorded, off the connection's goroutines, until the trace closes.
func (w *wireTrace) writer() {
	defer close(w.done)
	for range w.wake {
		w.mu.Lock()
		data, closed := w.pending, w.closed
		w.pending = nil
		w.mu.Unlock()
		if len(data) > 0 && w.file != nil {
			if _, err := w.file.Write(data); err != nil {
				fmt.Fprintf(os.Stderr, "acp: %s: writing the recording failed: %v; the connection goes on unrecorded\n", TraceEnvironment, err)
				_ = w.file.Close()
				w.file = nil
			}
		}
		if closed {
			return
		}
	}
}

// close writes what is left (the header at least) and closes the file; once the connection's
// goroutines have ended.
func (w *wireTrace) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	if w.side == "" {
		w.appendHeader()
	}
	w.closed = true
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	<-w.done
	if w.file != nil {
		_ = w.file.Close()
	}
}

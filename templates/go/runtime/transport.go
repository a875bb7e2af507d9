package acp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
)

// DefaultFrameLimit is the longest frame read whole (50 MiB); a longer one is dropped as it
// streams, never held.
const DefaultFrameLimit = 50 << 20

// frameHead is how much of a dropped frame is kept, to answer it (its id and method).
const frameHead = 4 << 10

// Transport carries frames: one JSON-RPC message each, without its delimiting (an NDJSON line's
// newline, a Content-Length message's header part). Layer: transport.
type Transport interface {
	// ReadFrame returns the next frame; io.EOF once the peer has closed its side. A frame over
	// the limit is a *FrameTooLong, after which reading goes on.
	ReadFrame() ([]byte, error)
	// WriteFrame writes one frame and its delimiting in one write; safe for concurrent use.
	WriteFrame(frame []byte) error
	// Close closes both directions; a ReadFrame under way returns.
	Close() error
}

// FrameTooLong is a frame longer than the limit, dropped: Head is its beginning, Size its
// length.
type FrameTooLong struct {
	Limit int
	Size  int64
	Head  []byte
}

func (e *FrameTooLong) Error() string {
	return "a frame of " + itoa(int(e.Size)) + " bytes is over the limit of " + itoa(e.Limit)
}

// StreamTransport is NDJSON (one message per line; or another Framing: ContentLength) over any
// reader and writer: stdio, pipes, sockets, a spawned program's stdin and stdout.
type StreamTransport struct {
	reader    *bufio.Reader
	writer    io.Writer
	closers   []io.Closer
	limit     int
	framing   Framing
	malformed func(reason string)

	writeMu   sync.Mutex
	closeOnce sync.Once
	closeErr  error
}

// NewStreamTransport reads frames from r and writes them to w, framed as NDJSON unless an
// option says otherwise (ContentLength). Close closes r and w when they are io.Closers (closing
// r is what ends a ReadFrame under way).
func NewStreamTransport(r io.Reader, w io.Writer, options ...TransportOption) *StreamTransport {
	t := &StreamTransport{reader: bufio.NewReaderSize(r, 64<<10), writer: w, limit: DefaultFrameLimit}
	for _, option := range options {
		option.applyTransport(t)
	}
	for _, side := range []any{w, r} {
		if closer, ok := side.(io.Closer); ok {
			t.closers = append(t.closers, closer)
		}
	}
	return t
}

// Stdio is the transport of a program spoken to over its standard input and output.
func Stdio(options ...TransportOption) *StreamTransport {
	return NewStreamTransport(os.Stdin, os.Stdout, options...)
}

// SetFrameLimit sets the longest frame read whole (DefaultFrameLimit unless set).
func (t *StreamTransport) SetFrameLimit(limit int) {
	t.limit = limit
}

// ReadFrame returns the next non-empty line, without its newline (and a carriage return
// before it); with ContentLength, the next message's content part.
func (t *StreamTransport) ReadFrame() ([]byte, error) {
	if t.framing == ContentLength {
		return t.readMessage()
	}
	for {
		line, err := t.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

func (t *StreamTransport) readLine() ([]byte, error) {
	var line []byte
	var size int64
	tooLong := false
	for {
		chunk, err := t.reader.ReadSlice('\n')
		size += int64(len(chunk))
		if !tooLong {
			if len(line)+len(chunk) > t.limit+1 {
				tooLong = true
				line = append(line, chunk[:min(len(chunk), max(0, frameHead-len(line)))]...)
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, &FrameTooLong{Limit: t.limit, Size: size - 1, Head: line[:min(len(line), frameHead)]}
			}
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0 && !tooLong:
			return line, nil // a last line without its newline
		default:
			return nil, err
		}
	}
}

// WriteFrame writes frame and a newline (with ContentLength, its header part first) in one
// write.
func (t *StreamTransport) WriteFrame(frame []byte) error {
	message := t.wrap(frame)
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	_, err := t.writer.Write(message)
	return err
}

// Close closes the writer, then the reader (each once).
func (t *StreamTransport) Close() error {
	t.closeOnce.Do(func() {
		for _, closer := range t.closers {
			if err := closer.Close(); err != nil && t.closeErr == nil && !errors.Is(err, os.ErrClosed) {
				t.closeErr = err
			}
		}
	})
	return t.closeErr
}

// Pipe is two transports connected in memory: what one writes, the other reads (both with the
// options given).
func Pipe(options ...TransportOption) (*StreamTransport, *StreamTransport) {
	aReads, bWrites := io.Pipe()
	bReads, aWrites := io.Pipe()
	return NewStreamTransport(aReads, aWrites, options...), NewStreamTransport(bReads, bWrites, options...)
}

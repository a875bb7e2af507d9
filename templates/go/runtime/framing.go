package acp

// Layer: transport (how messages are delimited on a byte stream: NDJSON lines, or the LSP base
// protocol's Content-Length headers; it knows nothing of JSON-RPC). The same two framings as the
// Python runtime's transports/framing.py and the TypeScript runtime's transports/framing.ts.

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log"
	"strconv"
)

// Framing is how a StreamTransport delimits messages, chosen per transport: NDJSON (the
// default) or ContentLength. A Framing is a TransportOption:
//
//	transport := acp.Stdio(acp.ContentLength)
type Framing int

const (
	// NDJSON is one JSON message per line (ACP, MCP over stdio): the default.
	NDJSON Framing = iota
	// ContentLength is the LSP base protocol: "Content-Length: N\r\n\r\n", then N bytes of
	// UTF-8 JSON.
	ContentLength
)

// String is the framing's name: "ndjson" or "content-length".
func (f Framing) String() string {
	if f == ContentLength {
		return "content-length"
	}
	return "ndjson"
}

func (f Framing) applyTransport(t *StreamTransport) {
	t.framing = f
}

// TransportOption configures a StreamTransport: NewStreamTransport, Stdio, Pipe and
// SpawnCommand take them. A Framing is one; ReportMalformed is another.
type TransportOption interface {
	applyTransport(t *StreamTransport)
}

type transportOptionFunc func(t *StreamTransport)

func (f transportOptionFunc) applyTransport(t *StreamTransport) {
	f(t)
}

// ReportMalformed sets where a transport reports, one line each, the bytes it dropped because
// its framing cannot read them (a Content-Length header part without a usable Content-Length, a
// stream ended inside a message). Unless set, each is one line of the standard logger ("acp: …").
func ReportMalformed(report func(reason string)) TransportOption {
	return transportOptionFunc(func(t *StreamTransport) { t.malformed = report })
}

// The reasons ReportMalformed is given.
const (
	malformedHeader     = "a message header without a usable Content-Length was dropped"
	malformedLongHeader = "a header part of over 8192 bytes without its end was dropped"
	malformedEnd        = "the stream ended inside a message"
)

// headerLimit bounds a header part read without its end: LSP's holds one or two short fields.
const headerLimit = 8192

// headerEnd ends a header part: "Each header field is terminated by '\r\n'" and "The header
// part and the content part are separated by a '\r\n'".
var headerEnd = []byte("\r\n\r\n")

var lengthField = []byte("content-length:")

func (t *StreamTransport) reportMalformed(reason string) {
	if t.malformed != nil {
		t.malformed(reason)
		return
	}
	log.Printf("acp: dropped bytes the framing cannot read: %s", reason)
}

// wrap is one outgoing frame with its delimiting, in one slice (written in one write).
func (t *StreamTransport) wrap(frame []byte) []byte {
	if t.framing == ContentLength {
		// "Content-Length: The length of the content part in bytes." (bytes, not characters)
		header := "Content-Length: " + strconv.Itoa(len(frame)) + "\r\n\r\n"
		message := make([]byte, 0, len(header)+len(frame))
		return append(append(message, header...), frame...)
	}
	line := make([]byte, 0, len(frame)+1)
	return append(append(line, frame...), '\n')
}

// readMessage returns the content part of the next LSP base protocol message: "The header part
// consists of header fields", "Content-Length: The length of the content part in bytes. This
// header is required."; "Content-Type … Defaults to application/vscode-jsonrpc; charset=utf-8",
// so it is ignored: the content is read as UTF-8 JSON (a body that is not UTF-8 is returned as it
// is, and the connection answers it -32700 as it answers such a line). In time linear in the
// bytes read. A header part without a usable Content-Length is dropped and reported, and the
// next bytes are read as a header part again, so the stream stays usable. A content part over
// the frame limit is skipped as it streams (only its head is kept): a *FrameTooLong, after which
// reading goes on.
func (t *StreamTransport) readMessage() ([]byte, error) {
	for {
		header, err := t.readHeader()
		if err != nil {
			return nil, err
		}
		size, ok := contentLength(header)
		if !ok {
			t.reportMalformed(malformedHeader)
			continue
		}
		if size > int64(t.limit) {
			return nil, t.skipContent(size)
		}
		var body bytes.Buffer // grown as the bytes come, not to the length the header claims
		body.Grow(int(min(size, 64<<10)))
		if read, err := body.ReadFrom(io.LimitReader(t.reader, size)); err != nil || read < size {
			return nil, t.endedInside(err)
		}
		return body.Bytes(), nil
	}
}

// readHeader reads up to and without the "\r\n\r\n" that ends a header part. A header part of
// over headerLimit bytes without its end is dropped (reported once) as it streams: its last
// bytes are kept, since the end may straddle two reads.
func (t *StreamTransport) readHeader() ([]byte, error) {
	var header []byte
	tooLong := false
	for {
		chunk, err := t.reader.ReadSlice('\n')
		header = append(header, chunk...)
		switch {
		case err == nil && bytes.HasSuffix(header, headerEnd):
			return header[:len(header)-len(headerEnd)], nil
		case err == nil || errors.Is(err, bufio.ErrBufferFull):
		case len(bytes.TrimSpace(header)) > 0 || tooLong:
			return nil, t.endedInside(err)
		default:
			return nil, err // between messages: the peer's end
		}
		if len(header) > headerLimit {
			if !tooLong {
				t.reportMalformed(malformedLongHeader)
			}
			tooLong = true
			header = append(header[:0], header[len(header)-(len(headerEnd)-1):]...)
		}
	}
}

// contentLength is a header part's first usable Content-Length (header names are
// case-insensitive), or false when it has none.
func contentLength(header []byte) (int64, bool) {
	for _, field := range bytes.Split(header, []byte("\r\n")) {
		if len(field) < len(lengthField) || !bytes.EqualFold(field[:len(lengthField)], lengthField) {
			continue
		}
		value := bytes.Trim(field[len(lengthField):], " \t")
		if len(value) == 0 || value[0] < '0' || value[0] > '9' {
			continue // digits only: no sign
		}
		if size, err := strconv.ParseInt(string(value), 10, 64); err == nil {
			return size, true
		}
	}
	return 0, false
}

// skipContent reads past a content part over the limit, keeping its head.
func (t *StreamTransport) skipContent(size int64) error {
	head := make([]byte, min(size, frameHead))
	if _, err := io.ReadFull(t.reader, head); err != nil {
		return t.endedInside(err)
	}
	for left := size - int64(len(head)); left > 0; {
		skipped, err := t.reader.Discard(int(min(left, 1<<30)))
		left -= int64(skipped)
		if err != nil {
			return t.endedInside(err)
		}
	}
	return &FrameTooLong{Limit: t.limit, Size: size, Head: head}
}

// endedInside reports a stream that ended inside a message; the end is io.EOF, as between
// messages (another read error is returned as it is).
func (t *StreamTransport) endedInside(err error) error {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		t.reportMalformed(malformedEnd)
		return io.EOF
	}
	return err
}

package tests

// A raw peer for the runtime's tests: the other end of a connection, speaking JSON-RPC frames by
// hand, so what is asserted is exactly what another implementation would read.

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	acp "acp-protocol-sdk"
)

const patience = 5 * time.Second

// rawPeer is the other end of a connection, speaking frames by hand.
type rawPeer struct {
	t      *testing.T
	end    *acp.StreamTransport
	frames chan string
}

// connect starts a Connection with handler on one end of a pipe and returns it with the raw
// other end; both are closed when the test ends.
func connect(t *testing.T, handler acp.Handler, options ...acp.Option) (*acp.Connection, *rawPeer) {
	t.Helper()
	ours, theirs := acp.Pipe()
	conn := acp.NewConnection(ours, handler, options...)
	peer := &rawPeer{t: t, end: theirs, frames: make(chan string, 64)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			frame, err := theirs.ReadFrame()
			if err != nil {
				close(peer.frames)
				return
			}
			peer.frames <- string(frame)
		}
	}()
	t.Cleanup(func() {
		_ = conn.Close()
		_ = theirs.Close()
		<-done
	})
	return conn, peer
}

func (p *rawPeer) send(frame string) {
	p.t.Helper()
	if err := p.end.WriteFrame([]byte(frame)); err != nil {
		p.t.Fatal(err)
	}
}

// next is the next frame the connection wrote, as a map (and its text).
func (p *rawPeer) next() (map[string]json.RawMessage, string) {
	p.t.Helper()
	select {
	case frame, ok := <-p.frames:
		if !ok {
			p.t.Fatal("the connection closed")
		}
		var msg map[string]json.RawMessage
		if err := json.Unmarshal([]byte(frame), &msg); err != nil {
			p.t.Fatalf("%s: %v", frame, err)
		}
		return msg, frame
	case <-time.After(patience):
		p.t.Fatal("no frame came")
	}
	return nil, ""
}

// quiet asserts that the connection writes nothing for a moment.
func (p *rawPeer) quiet() {
	p.t.Helper()
	select {
	case frame := <-p.frames:
		p.t.Fatalf("unexpected frame %s", frame)
	case <-time.After(100 * time.Millisecond):
	}
}

func errorCode(t *testing.T, msg map[string]json.RawMessage) (int, json.RawMessage) {
	t.Helper()
	var failure acp.Error
	if err := json.Unmarshal(msg["error"], &failure); err != nil {
		t.Fatalf("not an error answer: %v", msg)
	}
	return failure.Code, failure.Data
}

// blocking answers "wait" once its ctx ends, with the ctx's error, and reports the cause.
func blocking(started chan<- struct{}, causes chan<- error) acp.RequestFunc {
	return func(ctx context.Context, _ json.RawMessage) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return nil, ctx.Err()
	}
}

func echo(_ context.Context, params json.RawMessage) (any, error) {
	return params, nil
}

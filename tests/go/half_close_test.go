package tests

// Half-close (`printf … | agent`): the requests the peer sent before the end of its input are
// carried out and answered within the grace; what still runs then is answered -32800; our own
// requests fail at once. As the Python and TypeScript runtimes (connection.py `eof_grace`,
// connection.ts `eofGrace`).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	acp "acp-protocol-sdk"
)

// halfClosed serves handlers on a transport whose input is `frames`, then ended; it returns the
// connection and the frames it writes.
func halfClosed(t *testing.T, handlers acp.MethodHandlers, frames []string, options ...acp.Option) (*acp.Connection, <-chan map[string]json.RawMessage) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn := acp.NewConnection(acp.NewStreamTransport(inR, outW), handlers, options...)
	written := make(chan map[string]json.RawMessage, 16)
	go func() {
		defer close(written)
		lines := bufio.NewScanner(outR)
		for lines.Scan() {
			var msg map[string]json.RawMessage
			if json.Unmarshal(lines.Bytes(), &msg) == nil {
				written <- msg
			}
		}
	}()
	go func() {
		for _, frame := range frames {
			_, _ = inW.Write([]byte(frame + "\n"))
		}
		_ = inW.Close()
	}()
	t.Cleanup(func() {
		_ = conn.Close()
		_ = outR.Close()
	})
	return conn, written
}

func answerOf(t *testing.T, written <-chan map[string]json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	select {
	case msg := <-written:
		return msg
	case <-time.After(patience):
		t.Fatal("no answer came")
	}
	return nil
}

func TestARequestReadBeforeTheEndOfInputIsCarriedOutAndAnswered(t *testing.T) {
	slow := func(ctx context.Context, _ json.RawMessage) (any, error) {
		select {
		case <-time.After(200 * time.Millisecond):
			return "done", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	conn, written := halfClosed(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"slow": slow}},
		[]string{`{"jsonrpc":"2.0","id":1,"method":"slow"}`})
	answer := answerOf(t, written)
	if string(answer["id"]) != "1" || string(answer["result"]) != `"done"` {
		t.Fatalf("the answer: %v", answer)
	}
	select {
	case <-conn.Done():
	case <-time.After(patience):
		t.Fatal("the connection did not close after answering")
	}
}

func TestWhatStillRunsAfterTheGraceIsAnswered32800(t *testing.T) {
	started, causes := make(chan struct{}, 1), make(chan error, 1)
	conn, written := halfClosed(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"wait": blocking(started, causes)}},
		[]string{`{"jsonrpc":"2.0","id":7,"method":"wait"}`}, acp.EOFGrace(100*time.Millisecond))
	<-started
	answer := answerOf(t, written)
	if code, _ := errorCode(t, answer); code != acp.RequestCancelled || string(answer["id"]) != "7" {
		t.Fatalf("the answer: %v", answer)
	}
	if cause := <-causes; !errors.Is(cause, acp.ErrPeerClosed) {
		t.Fatalf("the handler's ctx ended with %v", cause)
	}
	<-conn.Done()
}

func TestOurRequestsFailAtOnceAfterThePeersEndOfInput(t *testing.T) {
	failed := make(chan error, 1)
	nested := func(ctx context.Context, _ json.RawMessage) (any, error) {
		time.Sleep(50 * time.Millisecond) // the input has ended by now
		_, err := acp.ConnectionOf(ctx).Request(ctx, "fs/read_text_file", map[string]string{"path": "/x"})
		failed <- err
		return nil, err
	}
	_, written := halfClosed(t, acp.MethodHandlers{Requests: map[string]acp.RequestFunc{"nested": nested}},
		[]string{`{"jsonrpc":"2.0","id":2,"method":"nested"}`})
	select {
	case err := <-failed:
		if !errors.Is(err, acp.ErrPeerClosed) {
			t.Fatalf("our request failed with %v", err)
		}
	case <-time.After(patience):
		t.Fatal("our request did not fail at once")
	}
	if answer := answerOf(t, written); answer["error"] == nil {
		t.Fatalf("the handler's failure was not answered: %v", answer)
	}
}

package acp

// Layer: dispatcher (the peer's notifications, in order).

import "context"

// The peer's notifications are handled one at a time, in the order they came, by one loop of
// the connection. An answer to one of our requests that comes while notifications wait is
// queued behind them, so its caller has seen what the peer sent before it (a prompt's caller
// has its whole session/update stream); an answer to a request made inside a notification
// handler is delivered at once (it cannot wait behind that handler).

// pendingCall is one of our requests waiting for its answer. A direct one was made by a
// notification handler: its answer cannot wait behind that handler.
type pendingCall struct {
	answer chan reply
	direct bool
}

type inNotificationKey struct{}

// answerNow says whether an answer can reach its caller at once: the peer's notifications sent
// before it are handled first (a prompt's caller has its session/update stream), unless the
// call waits inside a notification handler.
func (c *Connection) answerNow(msg message) bool {
	key, ok := idKey(msg.ID)
	c.mu.Lock()
	defer c.mu.Unlock()
	return !ok || c.queued == 0 || c.pending[key].direct
}

// queue hands a frame to the notification loop, in order.
func (c *Connection) queue(msg message) {
	select {
	case c.notes <- msg:
	case <-c.base.Done():
	}
}

// notificationLoop handles the queued notifications in order, and delivers the answers queued
// behind them.
func (c *Connection) notificationLoop() {
	defer c.workers.Done()
	ctx := context.WithValue(c.base, inNotificationKey{}, true)
	for msg := range c.notes {
		if msg.Method == nil { // an answer that waited for the notifications before it
			c.answered(msg)
			continue
		}
		if c.base.Err() == nil { // closing: drained, not handled
			c.handler.HandleNotification(ctx, *msg.Method, msg.Params)
		}
		c.mu.Lock()
		c.queued--
		c.mu.Unlock()
	}
}

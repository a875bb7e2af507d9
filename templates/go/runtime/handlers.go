package acp

// Layer: dispatcher (the Handler protocol between the dispatcher and the typed layer).

import (
	"context"
	"encoding/json"
)

// Binder is a Handler with state of its own per connection: NewConnection serves, on each
// connection, the Handler its Bind returns for it. Each edition's generated role handler is
// one: it binds to the connection's BehaviourEngine, which holds the connection's typed-layer
// state (turns, foreground work, session views, client state), so the Connection holds none.
type Binder interface {
	Handler
	Bind(conn *Connection) Handler
}

// RequestFunc answers one request method.
type RequestFunc func(ctx context.Context, params json.RawMessage) (any, error)

// NotificationFunc takes one notification method.
type NotificationFunc func(ctx context.Context, params json.RawMessage)

// MethodHandlers is a Handler made of functions by method name: a request no function answers
// is -32601, a notification no function takes is ignored.
type MethodHandlers struct {
	Requests      map[string]RequestFunc
	Notifications map[string]NotificationFunc
}

// HandleRequest calls the request's function.
func (h MethodHandlers) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if answer, ok := h.Requests[method]; ok {
		return answer(ctx, params)
	}
	return nil, MethodNotFoundError(method)
}

// HandleNotification calls the notification's function.
func (h MethodHandlers) HandleNotification(ctx context.Context, method string, params json.RawMessage) {
	if take, ok := h.Notifications[method]; ok {
		take(ctx, params)
	}
}

// MethodNotFoundError is -32601 for method, named in data.
func MethodNotFoundError(method string) *Error {
	data, _ := json.Marshal(map[string]string{"method": method})
	return &Error{Code: MethodNotFound, Message: "Method not found", Data: data}
}

type requestIDKey struct{}

// RequestIDOf is the id of the peer's request whose handler ctx belongs to, exactly as it came
// (nil for any other ctx).
func RequestIDOf(ctx context.Context) json.RawMessage {
	id, _ := ctx.Value(requestIDKey{}).(json.RawMessage)
	return id
}

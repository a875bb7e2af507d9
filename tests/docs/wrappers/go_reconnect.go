// docs/scale.md's Go reconnect block: what it takes as known (a ctx, a client type, a prompt
// request), and a use of each name it declares. Compiled only: it needs servers behind nginx
// (tests/scale/test_kill_a_server.py runs tests/go/interop/reconnect_client against them).
package main

import (
	"context"
	"errors"
	"fmt"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
)

type myClient struct{ v1.UnimplementedClient }

func main() {
	ctx := context.Background()
	request := v1.PromptRequest{SessionID: "session-1", Prompt: []v1.ContentBlock{v1.ContentBlockText{Text: "hello"}}}
	// FRAGMENT
	fmt.Println(answer.StopReason)
}

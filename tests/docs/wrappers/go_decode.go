// docs/go-target.md's first block (imports and a function) made a program: its package and a
// main that calls it.
package main

// FRAGMENT

func main() {
	data := []byte(`{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`)
	if _, err := reread(data); err != nil {
		panic(err)
	}
}

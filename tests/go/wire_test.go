package tests

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	v2 "acp-protocol-sdk/v2"
	"acp-protocol-sdk/wire"
)

// decodeError is the *wire.DecodeError decoding data with decode failed with.
func decodeError(t *testing.T, decode func([]byte) (any, error), data string) *wire.DecodeError {
	t.Helper()
	_, err := decode([]byte(data))
	var decodeErr *wire.DecodeError
	if !errors.As(err, &decodeErr) {
		t.Fatalf("%s: expected a *wire.DecodeError, got %v", data, err)
	}
	return decodeErr
}

func mustMarshal(t *testing.T, value any) string {
	t.Helper()
	written, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	return string(written)
}

func TestAnUnknownSessionUpdateIsKeptWholeAndWrittenBackAsItCame(t *testing.T) {
	wireText := `{"sessionUpdate":"from_the_future","payload":{"x":[1,2.5,"<&>"]},"_meta":null}`
	update, err := v1.DecodeSessionUpdate([]byte(wireText))
	if err != nil {
		t.Fatal(err)
	}
	unknown, ok := update.(v1.UnknownSessionUpdate)
	if !ok {
		t.Fatalf("decoded as %T, not the unknown variant", update)
	}
	if unknown.SessionUpdate != "from_the_future" || string(unknown.Extra["payload"]) != `{"x":[1,2.5,"<&>"]}` {
		t.Fatalf("not kept: %+v", unknown)
	}
	if difference := sameJSON([]byte(wireText), []byte(mustMarshal(t, update))); difference != "" {
		t.Fatal(difference)
	}
}

func TestAnUnknownTagIsNeverTakenForTheDefaultVariant(t *testing.T) {
	// v1 AuthMethod: "When no `type` is present, the method is treated as `agent`".
	method, err := v1.DecodeAuthMethod([]byte(`{"id":"login","name":"Log in"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := method.(v1.AuthMethodAgent); !ok {
		t.Fatalf("an untagged auth method decoded as %T", method)
	}
	method, err = v1.DecodeAuthMethod([]byte(`{"type":"env_var","id":"key","name":"API key"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := method.(v1.UnknownAuthMethod); !ok {
		t.Fatalf("an unknown auth method type decoded as %T", method)
	}
}

func TestAnUnknownVariantInsideAMessageComesBackAsItCame(t *testing.T) {
	note := `{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"hologram","frames":3}},"later":true}`
	table := editions["v1"].method(t, v1.MethodSessionUpdate, acp.Notification)
	value, difference := roundTrip(table.DecodeParams, json.RawMessage(note))
	if difference != "" {
		t.Fatal(difference)
	}
	chunk := value.(v1.SessionNotification).Update.(v1.SessionUpdateAgentMessageChunk)
	if _, ok := chunk.Content.(v1.UnknownContentBlock); !ok {
		t.Fatalf("the content decoded as %T", chunk.Content)
	}
}

func TestAbsentNullAndAValueStayApart(t *testing.T) {
	for _, text := range []string{
		`{"sessionUpdate":"session_info_update"}`,
		`{"sessionUpdate":"session_info_update","title":null,"_meta":null}`,
		`{"sessionUpdate":"session_info_update","title":"Plan","_meta":{"k":1}}`,
	} {
		update, err := v1.DecodeSessionUpdate([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if written := mustMarshal(t, update); written != text {
			t.Errorf("read %s, wrote %s", text, written)
		}
	}
	absent, _ := v1.DecodeSessionUpdate([]byte(`{"sessionUpdate":"session_info_update"}`))
	cleared, _ := v1.DecodeSessionUpdate([]byte(`{"sessionUpdate":"session_info_update","title":null}`))
	if title := absent.(v1.SessionUpdateSessionInfoUpdate).Title; !title.IsAbsent() {
		t.Errorf("absent title read as %+v", title)
	}
	if title := cleared.(v1.SessionUpdateSessionInfoUpdate).Title; !title.IsNull() {
		t.Errorf("null title read as %+v", title)
	}
}

func TestABuiltValueWritesItsTagAndLeavesAbsentFieldsOut(t *testing.T) {
	update := v1.SessionUpdateSessionInfoUpdate{Title: wire.Null[string](), UpdatedAt: wire.Some("2026-11-22T00:00:00Z")}
	want := `{"sessionUpdate":"session_info_update","title":null,"updatedAt":"2026-11-22T00:00:00Z"}`
	if written := mustMarshal(t, v1.SessionNotification{SessionID: "s", Update: update}); written != `{"sessionId":"s","update":`+want+`}` {
		t.Fatalf("wrote %s", written)
	}
	prompt := mustMarshal(t, v1.PromptRequest{SessionID: "s"})
	if prompt != `{"prompt":[],"sessionId":"s"}` && prompt != `{"sessionId":"s","prompt":[]}` {
		t.Fatalf("a required array left nil is written %s", prompt)
	}
}

func TestDefaultOnErrorDropsOnlyTheBadFieldAndKeepsTheMessage(t *testing.T) {
	// SessionInfoUpdate's fields carry x-deserialize-default-on-error.
	update, err := v1.DecodeSessionUpdate([]byte(`{"sessionUpdate":"session_info_update","title":42,"updatedAt":"2026-11-22T00:00:00Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	if written := mustMarshal(t, update); written != `{"sessionUpdate":"session_info_update","updatedAt":"2026-11-22T00:00:00Z"}` {
		t.Fatalf("wrote %s", written)
	}
}

func TestSkipInvalidItemsDropsTheBadItemsOnly(t *testing.T) {
	// Plan.entries carries x-deserialize-skip-invalid-items.
	text := `{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending"},{"content":7},{"content":"b","priority":"low","status":"completed"}]}`
	update, err := v1.DecodeSessionUpdate([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if entries := update.(v1.SessionUpdatePlan).Entries; len(entries) != 2 || entries[1].Content != "b" {
		t.Fatalf("entries: %+v", entries)
	}
}

func TestDefaultOnNullReadsNullAsTheDefault(t *testing.T) {
	// McpServerStdio.args and .env carry x-deserialize-default-on-null: null is the default, [].
	server, err := v1.DecodeMCPServer([]byte(`{"name":"n","command":"c","args":null,"env":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if written := mustMarshal(t, server); written != `{"args":[],"command":"c","env":[],"name":"n"}` && written != `{"name":"n","command":"c","args":[],"env":[]}` {
		t.Fatalf("wrote %s", written)
	}
}

func TestAWrongValueIsNamedByItsJSONPointer(t *testing.T) {
	decode := editions["v1"].method(t, v1.MethodSessionUpdate, acp.Notification).DecodeParams
	err := decodeError(t, decode, `{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":7}}}`)
	if err.Pointer() != "/update/content/text" || err.Error() != "/update/content/text: expected a string, got number 7" {
		t.Fatalf("%q: %v", err.Pointer(), err)
	}
	prompt := editions["v1"].method(t, v1.MethodSessionPrompt, acp.Request).DecodeParams
	if err := decodeError(t, prompt, `{"prompt":[]}`); err.Pointer() != "/sessionId" {
		t.Fatalf("a missing required field: %v", err)
	}
	if err := decodeError(t, prompt, `{"sessionId":"s","prompt":[{"type":"text"}]}`); err.Pointer() != "/prompt/0/text" {
		t.Fatalf("an array item: %v", err)
	}
	initialize := editions["v1"].method(t, v1.MethodInitialize, acp.Request).DecodeParams
	if err := decodeError(t, initialize, `{"protocolVersion":70000}`); err.Pointer() != "/protocolVersion" {
		t.Fatalf("ProtocolVersion is a uint16: %v", err)
	}
	if err := decodeError(t, initialize, `{"protocolVersion":1.5}`); err.Pointer() != "/protocolVersion" {
		t.Fatalf("ProtocolVersion is an integer: %v", err)
	}
}

func TestAPointerEscapesSlashAndTildeInKeys(t *testing.T) {
	terminal := `{"type":"terminal","id":"login","name":"Log in","env":{"PATH/x~y":7}}`
	err := decodeError(t, editions["v1"].types["AuthMethod"].Decode, terminal)
	if err.Pointer() != "/env/PATH~1x~0y" || err.Path[1] != "PATH/x~y" {
		t.Fatalf("%q %q", err.Pointer(), err.Path)
	}
}

func TestInvalidParamsAreAnswered32602WithThePointerInData(t *testing.T) {
	decode := editions["v1"].method(t, v1.MethodSessionPrompt, acp.Request).DecodeParams
	answer := acp.ErrorFor(decodeError(t, decode, `{"sessionId":1,"prompt":[]}`))
	if answer.Code != acp.InvalidParams || answer.Message != "Invalid params" {
		t.Fatalf("%+v", answer)
	}
	if difference := sameJSON(answer.Data, []byte(`{"pointer":"/sessionId","expected":"a string, got number 1"}`)); difference != "" {
		t.Fatalf("%s: %s", answer.Data, difference)
	}
	if internal := acp.ErrorFor(errors.New("disk full")); internal.Code != acp.InternalError || string(internal.Data) != `{"details":"disk full"}` {
		t.Fatalf("%+v", internal)
	}
}

func TestTheMethodTableNamesEachMethodsSideAndTypes(t *testing.T) {
	prompt := editions["v1"].method(t, "session/prompt", acp.Request)
	if prompt.Side != acp.SideAgent || prompt.Params != "PromptRequest" || prompt.Result != "PromptResponse" {
		t.Fatalf("%+v", prompt)
	}
	cancel := editions["v1"].method(t, "$/cancel_request", acp.Notification)
	if cancel.Side != acp.SideProtocol || cancel.DecodeResult != nil {
		t.Fatalf("%+v", cancel)
	}
	params, err := cancel.DecodeParams([]byte(`{"requestId":"abc"}`))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := params.(v1.CancelRequestNotification).RequestID.Get()
	if id != v1.RequestIDString("abc") {
		t.Fatalf("the request id decoded as %#v", id)
	}
	if _, err := cancel.DecodeParams([]byte(`{"requestId":null}`)); err != nil {
		t.Fatalf("v1's RequestId may be null: %v", err)
	}
	if _, err := editions["v2"].method(t, "$/cancel_request", acp.Notification).DecodeParams([]byte(`{"requestId":null}`)); err == nil {
		t.Fatal("v2's RequestId may not be null")
	}
	agent := v1.Roles[0]
	if agent.Name != "agent" || agent.TurnRule == nil || agent.TurnRule.Method != v1.MethodSessionPrompt {
		t.Fatalf("%+v", agent)
	}
}

func TestBehaviourIsDataPerEdition(t *testing.T) {
	if v1.Behaviour.Lifecycle.Answer != acp.Completion || v2.Behaviour.Lifecycle.Answer != acp.Insertion {
		t.Fatal("the prompt is answered at completion in v1, at insertion in v2")
	}
	if v2.Behaviour.Negotiation.Unsupported != -32022 || v2.Behaviour.Negotiation.Version != v2.EditionVersion {
		t.Fatalf("%+v", v2.Behaviour.Negotiation)
	}
	if states := v2.Behaviour.Lifecycle.States; states == nil || states.UpdateValue != "state_update" {
		t.Fatalf("%+v", states)
	}
	var outcome map[string]any
	for _, o := range v2.Behaviour.CancelOutcomes {
		if o.Method == "session/request_permission" {
			if err := json.Unmarshal([]byte(o.Result), &outcome); err != nil {
				t.Fatal(err)
			}
		}
	}
	if outcome["outcome"].(map[string]any)["outcome"] != "cancelled" {
		t.Fatalf("v2's cancelled permission outcome: %v", outcome)
	}
}

func TestStringLengthCountsCharactersNotBytesNorUTF16Units(t *testing.T) {
	// JSON Schema's maxLength: "the number of its characters as defined by RFC 8259" (code
	// points): 255 emoji are 510 UTF-16 units and 1,020 bytes, and within 1 to 255.
	decode := wire.StringLength[string](1, 255, "")
	for text, valid := range map[string]bool{
		"":                                       false,
		"K":                                      true,
		strings.Repeat("k", 255):                 true,
		strings.Repeat("k", 256):                 false,
		strings.Repeat("\U0001F600", 255):        true,
		strings.Repeat("\U0001F600", 256):        false,
		strings.Repeat("é", 255):                 true,
		strings.Repeat("\U0001F600", 254) + "ab": false,
	} {
		var out string
		err := decode([]byte(mustMarshal(t, text)), &out)
		if (err == nil) != valid || (valid && out != text) {
			t.Errorf("%d characters (%d bytes): %v", utf8.RuneCountInString(text), len(text), err)
		}
	}
	var out string
	if err := decode([]byte(`"`+strings.Repeat(`\ud83d\ude00`, 255)+`"`), &out); err != nil || out != strings.Repeat("\U0001F600", 255) {
		t.Errorf("255 escaped surrogate pairs: %v", err)
	}
	if err := wire.StringWith[string](1, "")([]byte(mustMarshal(t, strings.Repeat("k", 1000))), &out); err != nil {
		t.Errorf("StringWith has no maximum: %v", err)
	}
}

package tests

import (
	"encoding/json"
	"testing"

	acp "acp-protocol-sdk"
	v1 "acp-protocol-sdk/v1"
	v2 "acp-protocol-sdk/v2"
)

// infoAfter applies the updates (their wire form) in order to an empty SessionInfo.
func infoAfter(t *testing.T, policy acp.MetaPolicy, updates ...string) acp.SessionInfo {
	t.Helper()
	var info acp.SessionInfo
	for _, update := range updates {
		var err error
		if info, err = acp.ApplySessionInfoUpdate(info, json.RawMessage(update), policy); err != nil {
			t.Fatalf("%s: %v", update, err)
		}
	}
	return info
}

func metaJSON(t *testing.T, info acp.SessionInfo) string {
	t.Helper()
	if info.Meta == nil {
		return "absent"
	}
	text, err := json.Marshal(info.Meta)
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

func TestASessionInfoFieldThatIsAbsentIsUnchangedNullClearsItAValueSetsIt(t *testing.T) {
	info := infoAfter(t, acp.MetaMerge,
		`{"sessionUpdate":"session_info_update","title":"First","updatedAt":"2026-11-21T12:00:00Z"}`,
		`{"sessionUpdate":"session_info_update","title":null}`,
		`{"sessionUpdate":"session_info_update","updatedAt":"2026-11-22T08:00:00Z"}`,
	)
	if info.Title != nil || info.UpdatedAt == nil || *info.UpdatedAt != "2026-11-22T08:00:00Z" {
		t.Fatalf("title %v, updatedAt %v", info.Title, info.UpdatedAt)
	}
}

func TestASessionInfoMemberOfTheWrongTypeIsDroppedAndTheRestApplies(t *testing.T) {
	info := infoAfter(t, acp.MetaMerge,
		`{"title":"Kept","_meta":{"a":1}}`,
		`{"title":7,"updatedAt":"2026-11-21T12:00:00Z","_meta":"not an object"}`,
	)
	if info.Title == nil || *info.Title != "Kept" || info.UpdatedAt == nil || metaJSON(t, info) != `{"a":1}` {
		t.Fatalf("%+v", info)
	}
}

func TestV1MergesMetaRecursivelyAndANullLeafRemovesItsKey(t *testing.T) {
	policy := acp.MetaPolicyOf(v1.Behaviour, "SessionInfoUpdate")
	if policy != acp.MetaMerge {
		t.Fatalf("v1's policy is %q", policy)
	}
	info := infoAfter(t, policy,
		`{"_meta":{"trace":{"step":1,"tags":["a"]},"keep":true}}`,
		`{"_meta":{"trace":{"step":2,"tags":null}}}`,
	)
	if got := metaJSON(t, info); got != `{"keep":true,"trace":{"step":2}}` {
		t.Fatalf("merged to %s", got)
	}
}

func TestV2PatchesMetaByTopLevelKeyWithoutMergingNestedObjects(t *testing.T) {
	policy := acp.MetaPolicyOf(v2.Behaviour, "SessionInfoUpdate")
	if policy != acp.MetaPatch {
		t.Fatalf("v2's policy is %q", policy)
	}
	info := infoAfter(t, policy,
		`{"_meta":{"trace":{"step":1,"tags":["a"]},"keep":true,"gone":1}}`,
		`{"_meta":{"trace":{"step":2},"gone":null}}`,
	)
	if got := metaJSON(t, info); got != `{"keep":true,"trace":{"step":2}}` {
		t.Fatalf("patched to %s", got)
	}
}

func TestMetaReplacePolicyReplacesTheStoredObjectAndNullClearsIt(t *testing.T) {
	info := infoAfter(t, acp.MetaReplace, `{"_meta":{"a":1,"b":2}}`, `{"_meta":{"c":3}}`)
	if got := metaJSON(t, info); got != `{"c":3}` {
		t.Fatalf("replaced to %s", got)
	}
	if cleared := infoAfter(t, acp.MetaReplace, `{"_meta":{"a":1}}`, `{"_meta":null}`); cleared.Meta != nil {
		t.Fatalf("null left %s", metaJSON(t, cleared))
	}
}

func TestATypedSessionInfoUpdateAppliesAsItsWireForm(t *testing.T) {
	var update v1.SessionUpdateSessionInfoUpdate
	if err := json.Unmarshal([]byte(`{"sessionUpdate":"session_info_update","title":null,"_meta":null}`), &update); err != nil {
		t.Fatal(err)
	}
	title, meta := "Before", map[string]json.RawMessage{"a": json.RawMessage("1")}
	info, err := acp.ApplySessionInfoUpdate(acp.SessionInfo{Title: &title, Meta: meta}, update, acp.MetaMerge)
	if err != nil || info.Title != nil || info.Meta != nil {
		t.Fatalf("%+v %v", info, err)
	}
}

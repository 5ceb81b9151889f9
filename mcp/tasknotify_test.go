package mcp

import (
	"net/http"
	"testing"
)

// The identity a task is bound to: the token's subject when a jwt-validate checked it (a new
// token of the same subject keeps its tasks), else the Authorization header, else none.
func TestRequester(t *testing.T) {
	h := func(v ...string) http.Header { return http.Header{"Authorization": v} }
	claims := func(iss, sub string) map[string]any {
		return map[string]any{"jwt": map[string]any{"iss": iss, "sub": sub}}
	}
	if requester(nil, nil) != "" || requester(http.Header{}, map[string]any{"jwt": "odd"}) != "" {
		t.Fatal("no identity is not \"\"")
	}
	if requester(h("Bearer a"), nil) == requester(h("Bearer b"), nil) || requester(h("Bearer a"), nil) != requester(h("Bearer a"), nil) {
		t.Fatal("Authorization headers are not told apart")
	}
	if requester(h("Bearer a"), claims("i", "s")) != requester(h("Bearer b"), claims("i", "s")) {
		t.Fatal("two tokens of one subject are two requesters")
	}
	for _, other := range []map[string]any{claims("j", "s"), claims("i", "t"), claims("is", ""), claims("", "is")} {
		if requester(nil, other) == requester(nil, claims("i", "s")) {
			t.Fatalf("%v is taken for i/s", other)
		}
	}
	if requester(nil, claims("i", "")) != "" {
		t.Fatal("claims without a subject are an identity")
	}
}

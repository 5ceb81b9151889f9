package runtime_test

import (
	"errors"
	"testing"

	"github.com/octo-run/octo/runtime"
)

func TestABlockErrorReadsLikeADiagnosticAndKeepsItsKind(t *testing.T) {
	cause := runtime.Errorf(runtime.KindNotFound, "no such city")
	cases := []struct {
		name string
		err  *runtime.BlockError
		want string
	}{
		{"with its place and name", &runtime.BlockError{Type: "fail", Name: "nope", Addr: "flows.f.process[1]", At: "c.yaml:9:9", Err: cause},
			`c.yaml:9:9: flows.f.process[1] (fail "nope"): no such city`},
		{"without a place, as a block built by hand", &runtime.BlockError{Type: "fail", Err: cause}, `(fail): no such city`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.err.Error(); got != c.want {
				t.Fatalf("%q, want %q", got, c.want)
			}
			if e := runtime.ErrorOf(c.err); e != cause {
				t.Fatalf("ErrorOf gives %v, want the cause inside", e)
			}
		})
	}
	if pe := (&runtime.BlockError{Type: "x", Err: &runtime.PanicError{Value: "boom"}}); runtime.ErrorOf(pe).Kind != runtime.KindInternal {
		t.Fatal("a panic is not internal")
	}
}

func TestACloneChangesWithoutChangingTheOriginal(t *testing.T) {
	m := runtime.NewMessage([]byte(`{"a": 1}`))
	m.SetVar("user", "ada")
	c := m.Clone()
	c.SetBody("changed")
	c.SetVar("user", "bob")
	c.SetVar("error", errors.New("x"))
	if string(m.Raw()) != `{"a": 1}` || m.Vars["user"] != "ada" || len(m.Vars) != 1 {
		t.Fatalf("the original changed: body %q, vars %v", m.Raw(), m.Vars)
	}
	if v, _ := c.Body(); v != "changed" || c.Vars["user"] != "bob" {
		t.Fatalf("the clone did not change: %v %v", v, c.Vars)
	}
}

func TestKindsAreFoundByTheirNames(t *testing.T) {
	for k := runtime.KindInternal; k <= runtime.KindUpstream; k++ {
		if got, ok := runtime.KindNamed(k.String()); !ok || got != k {
			t.Errorf("KindNamed(%q) = %v, %v", k.String(), got, ok)
		}
	}
	if _, ok := runtime.KindNamed("teapot"); ok {
		t.Error("a name that is no kind's was found")
	}
	if got := runtime.KindsNamed([]string{"upstream", "teapot", "timeout"}); len(got) != 2 || got[0] != runtime.KindUpstream || got[1] != runtime.KindTimeout {
		t.Errorf("KindsNamed = %v", got)
	}
}

package vary

import (
	"strings"
	"testing"
	"time"
)

type env struct {
	Name string `expr:"name"`
	Call int    `expr:"call"`
}

func picks(t *testing.T, s Settings, whens []string, names ...string) string {
	t.Helper()
	s.Env = env{}
	p, errs := New(s, whens)
	if errs != nil {
		t.Fatal(errs)
	}
	var got []string
	for _, n := range names {
		i := p.Pick("k", nil, func(call int) any { return env{Name: n, Call: call} })
		switch i {
		case Own:
			got = append(got, "own")
		case Failure:
			got = append(got, "fail")
		default:
			got = append(got, string(rune('a'+i)))
		}
	}
	return strings.Join(got, ",")
}

func TestPick(t *testing.T) {
	for _, tt := range []struct {
		name  string
		s     Settings
		whens []string
		want  string
	}{
		{"match takes the first that holds, else own", Settings{}, []string{`name == "x"`, `call > 3`}, "a,own,own,b,a"},
		{"an answer without when always holds", Settings{}, []string{`name == "x"`, ``}, "a,b,b,b,a"},
		{"sequence keeps the last", Settings{Order: Sequence}, []string{"", "", ""}, "a,b,c,c,c"},
		{"cycle starts over", Settings{Order: Cycle}, []string{"", ""}, "a,b,a,b,a"},
		{"a rate of 1 always fails", Settings{FailureRate: 1}, []string{""}, "fail,fail,fail,fail,fail"},
		{"no answers: own", Settings{}, nil, "own,own,own,own,own"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := picks(t, tt.s, tt.whens, "x", "y", "z", "y", "x"); got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// The same seed and stream draw the same failures; another stream draws its own.
func TestDrawsRepeatWithTheSeed(t *testing.T) {
	seed := int64(3)
	names := strings.Split(strings.Repeat("n,", 64), ",")
	a := picks(t, Settings{FailureRate: 0.5, Seed: &seed, Stream: "t"}, nil, names...)
	b := picks(t, Settings{FailureRate: 0.5, Seed: &seed, Stream: "t"}, nil, names...)
	c := picks(t, Settings{FailureRate: 0.5, Seed: &seed, Stream: "u"}, nil, names...)
	if a != b || a == c || !strings.Contains(a, "fail") || !strings.Contains(a, "own") {
		t.Fatalf("t: %s\nt again: %s\nu: %s", a, b, c)
	}
}

// A when that does not compile is named with its answer; one that fails to run does not hold.
func TestWhenErrors(t *testing.T) {
	_, errs := New(Settings{Env: env{}}, []string{"", "nam == 1", "name +"})
	if len(errs) != 3 || errs[0] != nil || !strings.Contains(errs[1].Error(), "unknown name nam") || errs[2] == nil || strings.Contains(errs[2].Error(), "\n") {
		t.Fatalf("errs = %v", errs)
	}
	p, _ := New(Settings{Env: env{}}, []string{`int(name) > 0`})
	if i := p.Pick("", nil, func(call int) any { return env{Name: "ab", Call: call} }); i != Own {
		t.Fatalf("a failing when picked %d", i)
	}
}

// A key's count goes when its done channel closes.
func TestCountsAreForgottenWhenTheKeyEnds(t *testing.T) {
	var c counts
	done := make(chan struct{})
	c.next("s", done)
	if n := c.next("s", done); n != 2 {
		t.Fatalf("second = %d", n)
	}
	close(done)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		c.mu.Lock()
		_, kept := c.n["s"]
		c.mu.Unlock()
		if !kept {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the count was kept after the key ended")
		}
	}
	if n := c.next("s", nil); n != 1 {
		t.Fatalf("after the end = %d", n)
	}
}

// Package vary picks which of a mock's answers answers a request: the first whose when
// expression holds, or the next one in turn, or, for a share of the requests drawn from a
// seed, the failure. It is what the MCP mock's tools and the HTTP mock's routes share; what an
// answer is, and what a when reads, is theirs.
package vary

import (
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
)

// The orders answers are picked in.
const (
	Match    = "match"    // the first answer whose when holds
	Sequence = "sequence" // the n-th request the n-th answer, the last one from then on
	Cycle    = "cycle"    // the same, starting over after the last
)

// What Pick returns besides an answer's index.
const (
	Own     = -1 // no answer applies: the item's own settings answer
	Failure = -2 // the draw picked the request to fail
)

// Settings say how a picker picks.
type Settings struct {
	Order       string  // Match (also ""), Sequence or Cycle
	FailureRate float64 // 0 to 1
	Seed        *int64  // the draws' seed; nil: the clock's
	// Stream tells pickers apart (a tool's name, a route): each draws on its own, so one's
	// requests do not shift another's draws.
	Stream string
	// Env is the zero value of the struct a when reads, its fields tagged with the names the
	// expression uses (expr:"args"); one of them must be Call, an int tagged "call".
	Env any
}

// Picker picks a request's answer.
type Picker struct {
	when    []*vm.Program // per answer; nil: always
	order   string
	rate    float64
	counted bool // requests are counted: a sequence, or a when that reads call
	calls   counts

	mu  sync.Mutex // rng is not safe for concurrent draws
	rng *rand.Rand
}

// New compiles the answers' when expressions, whens[i] the i-th answer's ("" for always). Its
// errors are per answer (nil where it compiled), in expr-lang's words on one line.
func New(s Settings, whens []string) (*Picker, []error) {
	p := &Picker{order: s.Order, rate: s.FailureRate, when: make([]*vm.Program, len(whens))}
	if p.order == "" {
		p.order = Match
	}
	p.counted = p.order != Match
	var errs []error
	failed := false
	for i, src := range whens {
		errs = append(errs, nil)
		if src == "" {
			continue
		}
		prog, err := expr.Compile(src, expr.Env(s.Env), expr.AsBool())
		if err != nil {
			first, _, _ := strings.Cut(err.Error(), "\n") // the rest repeats the source with a caret
			errs[i], failed = errors.New(first), true
			continue
		}
		p.when[i] = prog
		p.counted = p.counted || strings.Contains(src, "call") // counting unread calls costs a map entry
	}
	if s.FailureRate > 0 {
		seed := uint64(time.Now().UnixNano())
		if s.Seed != nil {
			seed = uint64(*s.Seed)
		}
		h := fnv.New64a()
		h.Write([]byte(s.Stream))
		p.rng = rand.New(rand.NewPCG(seed, h.Sum64()))
	}
	if !failed {
		errs = nil
	}
	return p, errs
}

// Pick says which answer a request gets: its index, Own or Failure. key groups the requests
// counted together (a session; "" for all), done ends the key's count (nil: never), and env
// builds what a when reads from the request's count (1 for the first). A when that fails to
// evaluate does not hold.
func (p *Picker) Pick(key string, done <-chan struct{}, env func(call int) any) int {
	call := 0
	if p.counted {
		call = p.calls.next(key, done)
	}
	if p.rate > 0 && p.draw() < p.rate {
		return Failure
	}
	n := len(p.when)
	switch {
	case n == 0:
		return Own
	case p.order == Sequence:
		return min(call, n) - 1
	case p.order == Cycle:
		return (call - 1) % n
	}
	var e any
	for i, w := range p.when {
		if w == nil {
			return i
		}
		if e == nil {
			e = env(call)
		}
		if out, err := vm.Run(w, e); err == nil && out == true {
			return i
		}
	}
	return Own
}

func (p *Picker) draw() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rng.Float64()
}

// counts counts requests per key; a key's count goes when its done channel closes.
type counts struct {
	mu sync.Mutex
	n  map[string]int
}

// next counts a request of key and returns how many it made, this one included.
func (c *counts) next(key string, done <-chan struct{}) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	n, known := c.n[key]
	c.n[key] = n + 1
	if !known && done != nil {
		go c.forget(done, key)
	}
	return n + 1
}

func (c *counts) forget(done <-chan struct{}, key string) {
	<-done
	c.mu.Lock()
	delete(c.n, key)
	c.mu.Unlock()
}

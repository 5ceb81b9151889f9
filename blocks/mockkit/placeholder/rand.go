package placeholder

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/brianvoe/gofakeit/v7"
)

// Rand is the source of every dynamic value. One Rand per mock server: the same seed and
// clock give the same answers for the same sequence of renders. It is safe for concurrent
// use; a render holds it for its whole duration so one answer's draws stay together.
type Rand struct {
	mu  sync.Mutex
	rng *rand.Rand      // shares src with fake, so both advance one sequence
	f   *gofakeit.Faker // unlocked: mu already serialises every draw
	now func() time.Time
}

// NewRand returns a generator seeded with seed whose time-based names ($timestamp, dates)
// read now; a nil now means time.Now.
func NewRand(seed int64, now func() time.Time) *Rand {
	// Two different PCG words so seed 0 is as good a seed as any other.
	src := rand.NewPCG(uint64(seed), uint64(seed)^0x9e3779b97f4a7c15)
	if now == nil {
		now = time.Now
	}
	return &Rand{rng: rand.New(src), f: gofakeit.NewFaker(src, false), now: now}
}

// defaultRand serves renders that pass a nil Rand: seeded from the clock at start-up.
var defaultRand = NewRand(time.Now().UnixNano(), nil)

// between draws uniformly from [lo, hi]; callers guarantee lo <= hi and a span below 2^63.
func (r *Rand) between(lo, hi int64) int64 {
	return lo + int64(r.rng.Uint64N(uint64(hi-lo)+1))
}

// pick draws one element of list.
func (r *Rand) pick(list []string) string {
	return list[r.rng.IntN(len(list))]
}

// chars draws n bytes from alphabet.
func (r *Rand) chars(n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.rng.IntN(len(alphabet))]
	}
	return string(b)
}

// digits draws a string shaped like pattern, with every '#' replaced by a digit.
func (r *Rand) digits(pattern string) string {
	b := []byte(pattern)
	for i, c := range b {
		if c == '#' {
			b[i] = byte('0' + r.rng.IntN(10))
		}
	}
	return string(b)
}

// Package watch tells when files have been edited and have stopped changing, by polling their
// size and modification time: what `octo run --watch` and a workspace need to apply an edit
// once, never half written. It reads no file and knows nothing of what the files hold.
package watch

import (
	"maps"
	"os"
	"slices"
	"time"
)

// Stamp tells a file changed without reading it.
type Stamp struct {
	mod  time.Time
	size int64
}

// Stat stamps the files; those that cannot be stat'ed (gone) are left out.
func Stat(files []string) map[string]Stamp {
	out := make(map[string]Stamp, len(files))
	for _, f := range files {
		if info, err := os.Stat(f); err == nil {
			out[f] = Stamp{info.ModTime(), info.Size()}
		}
	}
	return out
}

// Settler holds edits back until they have settled: a file that changed is passed on once it
// has stayed the same (same stamp, or still gone) for Settle, so that a file an editor is still
// writing is never applied half written.
type Settler struct {
	// Settle is how long a change must stay the same; 0 passes changes on at once.
	Settle time.Duration
	// Clock tells the time; nil means time.Now.
	Clock func() time.Time

	applied map[string]Stamp
	pending map[string]seen
}

// seen is how a changed file looked when it was first seen so, and since when.
type seen struct {
	st    Stamp
	gone  bool
	since time.Time
}

// Reset takes files as they are now as applied, forgetting changes seen before.
func (s *Settler) Reset(files map[string]Stamp) {
	s.applied, s.pending = maps.Clone(files), nil
}

// Applied returns the files as last applied.
func (s *Settler) Applied() map[string]Stamp { return s.applied }

// Next takes the files as they are now and applies each change that has settled. It returns
// the files as applied before and after, and whether any change was applied.
func (s *Settler) Next(cur map[string]Stamp) (before, after map[string]Stamp, changed bool) {
	if s.pending == nil {
		s.pending = map[string]seen{}
	}
	t := s.now()
	after = maps.Clone(s.applied)
	if after == nil {
		after = map[string]Stamp{}
	}
	files := slices.Collect(maps.Keys(cur))
	for file := range s.applied {
		if _, ok := cur[file]; !ok {
			files = append(files, file)
		}
	}
	for _, file := range files {
		st, ok := cur[file]
		if old, had := s.applied[file]; ok == had && st == old {
			delete(s.pending, file)
			continue
		}
		p, was := s.pending[file]
		if now := (seen{st, !ok, t}); !was || p.st != now.st || p.gone != now.gone {
			p = now
			s.pending[file] = p
		}
		if t.Sub(p.since) < s.Settle {
			continue
		}
		delete(s.pending, file)
		if ok {
			after[file] = st
		} else {
			delete(after, file)
		}
	}
	before = s.applied
	s.applied = after
	return before, after, !maps.Equal(before, after)
}

// Flush applies every change at once, settled or not: for a user who says the files are ready
// (SIGHUP).
func (s *Settler) Flush(cur map[string]Stamp) (before, after map[string]Stamp, changed bool) {
	settle := s.Settle
	s.Settle = 0
	defer func() { s.Settle = settle }()
	return s.Next(cur)
}

func (s *Settler) now() time.Time {
	if s.Clock != nil {
		return s.Clock()
	}
	return time.Now()
}

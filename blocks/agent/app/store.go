package app

import (
	"slices"
	"strings"
	"sync"

	"github.com/octo-run/octo/blocks/agent/agenttools"
	"github.com/octo-run/octo/mcp/session"
)

// The traffic store's default bounds: whichever is reached first drops the oldest entries.
const (
	DefaultTrafficEntries = 10_000
	DefaultTrafficBytes   = 64 << 20
)

// entryOverhead is what an entry costs besides its message and summary, counted against the
// byte bound so that many small entries are bounded too.
const entryOverhead = 256

// Store keeps the traffic of the workspace's servers for agents and the console: the newest
// entries, bounded by count and by bytes. Every entry gets the next Seq, so a reader tells
// new entries from those it saw. Its methods are safe to call from several goroutines.
type Store struct {
	maxEntries, maxBytes int

	mu      sync.Mutex
	entries []agenttools.TrafficEntry // oldest first, from head on
	head    int                       // entries before head were dropped
	bytes   int                       // the size of entries[head:]
	seq     uint64
}

// NewStore returns an empty store keeping at most maxEntries entries and maxBytes bytes of
// them (0: the defaults).
func NewStore(maxEntries, maxBytes int) *Store {
	if maxEntries <= 0 {
		maxEntries = DefaultTrafficEntries
	}
	if maxBytes <= 0 {
		maxBytes = DefaultTrafficBytes
	}
	return &Store{maxEntries: maxEntries, maxBytes: maxBytes}
}

// Observe keeps one event of the server named server (a traffic.Tap's function). A message
// larger than the whole byte bound is kept without its JSON, saying so in its summary.
func (s *Store) Observe(server string, ev session.TrafficEvent) {
	e := agenttools.TrafficEntry{Time: ev.Time, Server: server, Session: ev.Session, Transport: string(ev.Transport),
		Direction: string(ev.Direction), Kind: string(ev.Kind), Method: ev.Method, Summary: ev.Summary,
		Message: ev.Message, Status: ev.Status, Code: ev.Code, Reason: string(ev.Reason), Version: ev.Version}
	if size(e) > s.maxBytes {
		e.Message = nil
		e.Summary += " (message too large to keep)"
	}
	s.add(e)
}

func size(e agenttools.TrafficEntry) int { return entryOverhead + len(e.Message) + len(e.Summary) }

func (s *Store) add(e agenttools.TrafficEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	e.Seq = s.seq
	s.entries = append(s.entries, e)
	s.bytes += size(e)
	for len(s.entries)-s.head > s.maxEntries || s.bytes > s.maxBytes {
		s.bytes -= size(s.entries[s.head])
		s.entries[s.head] = agenttools.TrafficEntry{} // let its message go
		s.head++
	}
	if s.head > len(s.entries)/2 { // compact: the dropped half is reused
		n := copy(s.entries, s.entries[s.head:])
		clear(s.entries[n:])
		s.entries, s.head = s.entries[:n], 0
	}
}

// Len reports how many entries the store holds and their size in bytes.
func (s *Store) Len() (entries, bytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries) - s.head, s.bytes
}

// Query returns the entries matching q, oldest first: with q.Since, the first q.Limit entries
// at or after it (ask again with a later Since to read on); without, the newest q.Limit.
// Server matches in any case; Session and Method exactly.
func (s *Store) Query(q agenttools.TrafficQuery) []agenttools.TrafficEntry {
	limit := q.Limit
	if limit <= 0 {
		limit = agenttools.DefaultTrafficLimit
	}
	limit = min(limit, agenttools.MaxTrafficLimit)
	match := func(e *agenttools.TrafficEntry) bool {
		return (q.Server == "" || strings.EqualFold(e.Server, q.Server)) &&
			(q.Session == "" || e.Session == q.Session) &&
			(q.Method == "" || e.Method == q.Method) &&
			(q.Since.IsZero() || !e.Time.Before(q.Since))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	live := s.entries[s.head:]
	var out []agenttools.TrafficEntry
	if !q.Since.IsZero() {
		for i := range live {
			if match(&live[i]) {
				if out = append(out, live[i]); len(out) == limit {
					break
				}
			}
		}
		return out
	}
	for i := len(live) - 1; i >= 0 && len(out) < limit; i-- {
		if match(&live[i]) {
			out = append(out, live[i])
		}
	}
	slices.Reverse(out)
	return out
}

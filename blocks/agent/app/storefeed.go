package app

import "github.com/octo-run/octo/blocks/agent/agenttools"

// After returns up to limit entries kept after seq, oldest first: what a live reader (the
// console's traffic stream) has not seen yet. limit ≤ 0 means MaxTrafficLimit.
func (s *Store) After(seq uint64, limit int) []agenttools.TrafficEntry {
	if limit <= 0 {
		limit = agenttools.MaxTrafficLimit
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	live := s.entries[s.head:]
	// Seqs grow by one from the oldest kept entry, so the first unseen one is found at once.
	first := 0
	if len(live) > 0 && seq >= live[0].Seq {
		first = int(seq-live[0].Seq) + 1
	}
	if first >= len(live) {
		return nil
	}
	out := live[first:min(len(live), first+limit)]
	return append([]agenttools.TrafficEntry(nil), out...)
}

// Last is the Seq of the newest entry ever kept (0 for none), even when it was cleared.
func (s *Store) Last() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// Clear drops every entry; numbering goes on, so readers keep their place.
func (s *Store) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.entries)
	s.entries, s.head, s.bytes = s.entries[:0], 0, 0
}

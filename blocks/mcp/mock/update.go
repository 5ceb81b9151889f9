package mock

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/octo-run/octo/mcp/session"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// Update swaps in edited settings while sessions stay open, then tells
// clients what changed: list_changed for tools, resources and prompts whose
// lists differ, resources/updated for subscribed resources whose settings
// changed. d holds the settings decoded (runtime.DecodeBlockSettings).
// Settings that cannot be used come back as a config.Diags error and the
// running version keeps serving; runtime.ErrRebuild means the edit touched
// what only a new build changes (serverName, version, instructions, path,
// cors, seed, limits, cache hints, task limits). problems are the items left out.
func (s *Server) Update(d runtime.Decoded) (problems config.Diags, err error) {
	set, ok := d.Settings.(*Settings)
	if !ok {
		return nil, fmt.Errorf("mcp-mock: cannot update from %T", d.Settings)
	}
	v, ds := newVersion(set, d.Positions)
	if len(ds) > 0 {
		return nil, ds
	}
	if !fixedOf(v.s, s.fallback).equal(s.fixed) {
		return nil, runtime.ErrRebuild
	}
	s.mu.Lock()
	old := s.cat
	s.cat, s.problems = v.cat, v.problems
	s.prov.cat.Store(v.cat)
	s.mu.Unlock()
	s.notify(old, v.cat)
	s.logProblems(v.problems)
	s.logger.Info("settings updated", "server", s.name, "tools", len(v.cat.toolList),
		"resources", len(v.cat.resourceList)+len(v.cat.templateList), "prompts", len(v.cat.promptList))
	return v.problems, nil
}

func (f fixedSettings) equal(g fixedSettings) bool {
	seedsEqual := f.seed == nil && g.seed == nil || f.seed != nil && g.seed != nil && *f.seed == *g.seed
	f.seed, g.seed = nil, nil
	return f == g && seedsEqual
}

// notify compares two catalogs and tells the clients what changed, on every replica of a
// cluster: each change with the version it changed to, so that replicas making the same edit
// tell it once.
func (s *Server) notify(old, cur *catalog) {
	if !sameJSON(old.toolList, cur.toolList) {
		s.st.Changed(session.Change{Kind: "tools", Version: versionOfList(cur.toolList)})
	}
	if !sameJSON(old.resourceList, cur.resourceList) || !sameJSON(old.templateList, cur.templateList) {
		s.st.Changed(session.Change{Kind: "resources", Version: versionOfList(cur.resourceList, cur.templateList)})
	}
	if !sameJSON(old.promptList, cur.promptList) {
		s.st.Changed(session.Change{Kind: "prompts", Version: versionOfList(cur.promptList)})
	}
	for _, r := range old.resources {
		if n := cur.resourceByURI[r.uri]; n != nil && n.version != r.version {
			s.st.Changed(session.Change{Kind: session.ChangeResource, URI: r.uri, Version: n.version})
		}
	}
}

// versionOfList fingerprints lists as clients see them.
func versionOfList(lists ...any) string {
	h := sha256.New()
	for _, l := range lists {
		_ = json.NewEncoder(h).Encode(l)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// sameJSON compares two lists as clients see them.
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errors.Join(errA, errB) == nil && string(ja) == string(jb)
}

package runtime

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/memtrim"
)

// updatable is a block of a build that can take edited settings in place (Updater), at the
// first address it is built under, with the settings it was built from.
type updatable struct {
	addr    string
	block   Updater
	decoded Decoded
}

// UpdateFrom hands next's settings to s's running blocks when next differs from s only in the
// settings of blocks that take edits in place (Updater): same service, variables, template
// resources, connectors and flows, every other block written alike and at the same place (its
// failures name its line at run time). s keeps serving with its sessions; next, which must
// not have been started, is dropped. updated is false, with a nil error, when next has to be
// started in s's place: s holds no such block (a reload of an unchanged config builds it
// anew, as it always did), next's build differs elsewhere, or a block answered ErrRebuild. A
// config.Diags error means a block refused the settings and s serves as it did.
func (s *Service) UpdateFrom(next *Service) (updated bool, err error) {
	if len(s.updatable) == 0 || s.cfg == nil || next.cfg == nil || !s.sameBuildBut(next) {
		return false, nil
	}
	// next built, so each block's settings passed its checks: what a block can still refuse is
	// an edit it takes only when built again, which it sees before it changes anything, and a
	// build rarely holds more than one such block.
	for i, u := range s.updatable {
		_, err := u.block.Update(next.updatable[i].decoded)
		switch {
		case errors.Is(err, ErrRebuild):
			return false, nil
		case err != nil:
			return false, err
		}
	}
	memtrim.Soon()
	return true, nil
}

// sameBuildBut reports whether next is built from what s is, but for the updatable blocks'
// settings.
func (s *Service) sameBuildBut(next *Service) bool {
	a, b := s.cfg, next.cfg
	if a.Service.Name != b.Service.Name || !maps.Equal(s.env, next.env) ||
		!slices.EqualFunc(a.Env, b.Env, sameVar) || !sameTemplates(a.Templates, b.Templates) ||
		!slices.EqualFunc(a.Connectors, b.Connectors, sameConnector) || len(a.Flows) != len(b.Flows) ||
		len(s.updatable) != len(next.updatable) {
		return false
	}
	for i, u := range s.updatable {
		if u.addr != next.updatable[i].addr {
			return false
		}
	}
	for i, f := range a.Flows {
		g := b.Flows[i]
		if f.Name != g.Name || f.Source.Connector != g.Source.Connector || f.Source.Type != g.Source.Type ||
			!sameNode(f.Source.Settings, g.Source.Settings) || len(f.Process) != len(g.Process) {
			return false
		}
		for j, cb := range f.Process {
			addr := fmt.Sprintf("flows.%s.process[%d]", f.Name, j)
			if !s.sameBlock(next, addr, cb, g.Process[j]) {
				return false
			}
		}
	}
	return true
}

// sameBlock compares the blocks at addr of two builds: an updatable one by type and name, any
// other by what it says and where.
func (s *Service) sameBlock(next *Service, addr string, a, b *config.Block) bool {
	if a.Type != b.Type || a.Name != b.Name {
		return false
	}
	_, old := s.instances[addr].(Updater)
	_, cur := next.instances[addr].(Updater)
	if old && cur {
		return true
	}
	return !old && !cur && samePlace(a.Node, b.Node)
}

// samePlace compares two YAML trees by what they say and where.
func samePlace(a, b *yaml.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Line != b.Line || a.Column != b.Column || !sameNode(&yaml.Node{Kind: a.Kind, Tag: a.Tag, Value: a.Value},
		&yaml.Node{Kind: b.Kind, Tag: b.Tag, Value: b.Value}) || len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		if !samePlace(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

func sameVar(a, b config.EnvVar) bool {
	return a.Name == b.Name && (a.Default == nil) == (b.Default == nil) && (a.Default == nil || *a.Default == *b.Default)
}

func sameTemplates(a, b map[string]*config.Template) bool {
	return maps.EqualFunc(a, b, func(x, y *config.Template) bool { return x.File == y.File && x.Text == y.Text })
}

func sameConnector(a, b *config.Connector) bool {
	return a.Name == b.Name && a.Type == b.Type && sameNode(a.Settings, b.Settings)
}

package supervisor

import (
	"context"
	"errors"
	"slices"

	"github.com/octo-run/octo/runtime"
)

// Action is what Sync did to one unit.
type Action uint8

const (
	// Kept: the unit serves this version already, or this version failed before (Err says why)
	// and is not tried again until it changes.
	Kept Action = iota
	// Started: the unit was not serving and now serves.
	Started
	// Replaced: a new build serves; the one before stops in the background.
	Replaced
	// UpdatedInPlace: the running build took the new settings in place, keeping its sessions.
	UpdatedInPlace
	// Stopped: the unit is no longer declared and has stopped.
	Stopped
	// Failed: the version did not start, or did not replace the running build, which keeps
	// serving; Err says why.
	Failed
)

var actionNames = [...]string{"kept", "started", "replaced", "updated in place", "stopped", "failed"}

func (a Action) String() string { return actionNames[a] }

// Outcome is what Sync did to one unit, and where the unit stands after it.
type Outcome struct {
	// Unit is the unit as declared; for a Stopped one, its name and label.
	Unit   runtime.Unit
	Action Action
	// Err is why the declared version does not serve: a config.Diags for a config that does not
	// build, else what failed (a port in use). Set on Failed, and on Kept when the version
	// failed before.
	Err error
	// Serving tells whether a build serves the unit now: an older version when Err is set.
	Serving bool
	// Service is the build serving the unit now, nil when none does.
	Service *runtime.Service
}

// SyncOptions tune one Sync.
type SyncOptions struct {
	// Retry names units to try again even if their version failed before: a user asked for them.
	Retry []string
}

// failure is a version of a unit that did not serve, and why.
type failure struct {
	version string
	err     error
}

// Sync has the units of group serve exactly what units declares, and returns what it did to
// each, stops first, then the declared units in their order:
//
//   - a declared unit that does not serve is started;
//   - one serving another version is replaced (Replace: in place when its blocks can take it);
//   - one serving this version is kept, and so is a version that failed before: an edit that
//     did not build is not built again until it changes, unless SyncOptions.Retry names it;
//   - a unit of the group that is not declared is stopped, letting its requests finish within
//     Options.StopTimeout.
//
// Units started with Start belong to no group and are left alone. A failure leaves a running
// build serving; Sync itself never fails.
func (s *Supervisor) Sync(ctx context.Context, group string, units []runtime.Unit, o SyncOptions) []Outcome {
	var out []Outcome
	declared := make(map[string]bool, len(units))
	for _, u := range units {
		declared[u.Name] = true
	}
	for _, u := range s.group(group) {
		if !declared[u.name] {
			out = append(out, s.stopUndeclared(u))
		}
	}
	s.mu.Lock()
	for name := range s.failed {
		if !declared[name] {
			delete(s.failed, name)
		}
	}
	s.mu.Unlock()
	for _, u := range units {
		o := s.sync(ctx, group, u, slices.Contains(o.Retry, u.Name))
		if o.Serving {
			o.Service = s.Service(u.Name)
		}
		out = append(out, o)
	}
	return out
}

// group lists the units of group.
func (s *Supervisor) group(group string) []*unit {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*unit
	for _, u := range s.units {
		if u.group == group && group != "" {
			out = append(out, u)
		}
	}
	return out
}

// stopUndeclared stops a unit its group no longer declares.
func (s *Supervisor) stopUndeclared(u *unit) Outcome {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.StopTimeout)
	defer cancel()
	o := Outcome{Unit: runtime.Unit{Name: u.name, Label: u.label}, Action: Stopped}
	if err := s.Stop(ctx, u.name); err != nil && !errors.Is(err, ErrNoUnit) {
		s.opts.Logger.Warn("the unit did not stop cleanly", "unit", u.name, "err", err)
	}
	return o
}

// sync brings one declared unit to its version.
func (s *Supervisor) sync(ctx context.Context, group string, d runtime.Unit, retry bool) Outcome {
	s.mu.Lock()
	u := s.units[d.Name]
	f, failedBefore := s.failed[d.Name]
	s.mu.Unlock()
	if u != nil && u.group != group {
		return Outcome{Unit: d, Action: Failed, Err: ErrUnitExists, Serving: true}
	}
	serving := u != nil
	if serving && u.version == d.Version && d.Version != "" {
		return Outcome{Unit: d, Action: Kept, Serving: true}
	}
	if failedBefore && f.version == d.Version && !retry {
		return Outcome{Unit: d, Action: Kept, Err: f.err, Serving: serving}
	}
	if !serving {
		err := s.startUnit(ctx, &unit{name: d.Name, label: d.Label, group: group, version: d.Version}, d.Config)
		return s.settle(d, Started, err, false)
	}
	u, err := s.lock(d.Name)
	if err != nil { // stopped meanwhile
		return s.settle(d, Failed, err, false)
	}
	defer u.mu.Unlock()
	inPlace, err := s.replace(ctx, u, d.Config)
	if err == nil {
		s.mu.Lock()
		u.version, u.label = d.Version, d.Label
		s.mu.Unlock()
	}
	if inPlace {
		return s.settle(d, UpdatedInPlace, err, true)
	}
	return s.settle(d, Replaced, err, true)
}

// settle records how a start or replace of d ended.
func (s *Supervisor) settle(d runtime.Unit, done Action, err error, wasServing bool) Outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.failed[d.Name] = failure{version: d.Version, err: err}
		return Outcome{Unit: d, Action: Failed, Err: err, Serving: wasServing}
	}
	delete(s.failed, d.Name)
	return Outcome{Unit: d, Action: done, Serving: true}
}

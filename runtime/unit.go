package runtime

import "github.com/octo-run/octo/runtime/config"

// Unit is one config served under a name of its own, built, replaced and stopped on its own by
// a supervisor: a flow config (named by its path), or one saved server of a workspace (named by
// its file).
type Unit struct {
	// Name identifies the unit across reloads.
	Name string
	// Label is what people call it (a saved server's name); "" means Name.
	Label string
	// Config is what the unit serves.
	Config *config.Config
	// Version says what Config was made from (its files' text, the values put into it): a unit
	// serving a config of the same version is left as it serves, and a version that failed to
	// serve is not tried again until it changes.
	Version string
}

// Title is the unit's Label, or its Name when it has none.
func (u Unit) Title() string {
	if u.Label != "" {
		return u.Label
	}
	return u.Name
}

// UnitSource is a config as a set of units: a flow config (one unit) or a config adapter's
// folder (AdapterSpec.Open), read again on every reload. One caller at a time.
type UnitSource interface {
	// Units reads the config as it is now and returns the units it declares, and the problems
	// found in what was read. changed lists the files edited (or removed) since the last call,
	// which are the ones read again; nil, on the first call, means every file. A unit whose file
	// has an edit that cannot be taken (broken, half written) stays at the version last read
	// well, with the edit's problems among those returned.
	Units(changed []string) ([]Unit, config.Diags)
	// Files lists the files the units are read from, for a watcher to stamp.
	Files() []string
}

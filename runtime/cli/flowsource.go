package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"slices"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/reload"
	"github.com/octo-run/octo/runtime/supervisor"
)

// flowSource is a flow config as the one unit `octo run` serves, named by its path: read whole
// on every edit, its version the text of its YAML files and template resources. A config that
// no longer loads keeps its unit at the version last loaded, the problems reported.
type flowSource struct {
	path      string
	lookup    func(string) (string, bool)
	log       *slog.Logger
	stdio     bool     // --stdio: serve the router's flow on standard input and output
	stdioName string   // the connector that serves on stdio, if any
	templates []string // the template resources of the version last loaded
	last      *runtime.Unit
	refused   bool // the last reload was not applied
	// tracing follows the config's service.tracing, applied before the config is built.
	tracing *Tracing
}

// Files lists the config's YAML files now, and the template resources of the version last
// loaded.
func (s *flowSource) Files() []string {
	files, _ := config.Files(s.path)
	return append(files, s.templates...)
}

// Units loads the config again when any of its files changed (runtime.UnitSource).
func (s *flowSource) Units(changed []string) ([]runtime.Unit, config.Diags) {
	if changed != nil && len(changed) == 0 && s.last != nil {
		return []runtime.Unit{*s.last}, nil
	}
	u, err := s.load()
	if err != nil {
		var ds config.Diags
		if !errors.As(err, &ds) {
			ds = config.Diags{{File: s.path, Msg: err.Error()}}
		}
		if s.last == nil {
			return nil, ds
		}
		return []runtime.Unit{*s.last}, ds
	}
	s.last = &u
	return []runtime.Unit{u}, nil
}

// load reads the config, rewritten for --stdio when asked.
func (s *flowSource) load() (runtime.Unit, error) {
	cfg, err := config.Load(s.path, s.lookup)
	if err != nil {
		return runtime.Unit{}, err
	}
	if s.stdio {
		if s.stdioName, err = ServeOnStdio(cfg); err != nil {
			return runtime.Unit{}, err
		}
	} else {
		s.stdioName = ownStdio(cfg)
	}
	s.templates = templateFiles(cfg)
	if s.tracing != nil {
		if err := s.tracing.Apply(context.Background(), cfg.Service); err != nil {
			return runtime.Unit{}, err
		}
	}
	return runtime.Unit{Name: s.path, Config: cfg, Version: filesDigest(append(slices.Clone(cfg.Files), s.templates...))}, nil
}

// filesDigest is a digest of the files' names and text; a file that cannot be read counts as
// changed each time.
func filesDigest(files []string) string {
	h := sha256.New()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return ""
		}
		h.Write([]byte(f))
		h.Write([]byte{0})
		h.Write(data)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Tell logs what a reload came to, one problem per line at its file:line:col (reload.Teller).
// The first reading is told by the command: its problems are its error.
func (s *flowSource) Tell(r reload.Report) {
	if r.Trigger == "start" {
		return
	}
	refusedBefore := s.refused
	s.refused = r.Err() != nil
	for _, d := range r.Problems {
		s.log.Error(d.String())
	}
	if len(r.Problems) > 0 {
		s.log.Error("not reloaded: the running config keeps serving", "trigger", r.Trigger)
		return
	}
	for _, o := range r.Outcomes {
		switch {
		case o.Err != nil: // failed now, or failed before and saved again as it was
			var ds config.Diags
			if errors.As(o.Err, &ds) {
				for _, d := range ds {
					s.log.Error(d.String())
				}
			} else {
				s.log.Error(o.Err.Error())
			}
			s.log.Error("not reloaded: the running config keeps serving", "trigger", r.Trigger)
		case o.Action == supervisor.UpdatedInPlace: // only blocks' settings changed, and the blocks took them: sessions stay open
			s.log.Info("reloaded in place", "service", o.Unit.Config.Service.Name, "trigger", r.Trigger)
		case o.Action == supervisor.Replaced, refusedBefore: // or the files are back to the config serving
			s.log.Info("reloaded", "service", o.Unit.Config.Service.Name, "trigger", r.Trigger)
		default:
			s.log.Info("nothing to reload: the files are as the running config was read", "trigger", r.Trigger)
		}
	}
}

// templateFiles lists the template resources cfg reads.
func templateFiles(cfg *config.Config) []string {
	out := make([]string, 0, len(cfg.Templates))
	for _, t := range cfg.Templates {
		out = append(out, t.File)
	}
	slices.Sort(out)
	return out
}

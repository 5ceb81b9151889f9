package workspace

import (
	"errors"
	"io"
	"log/slog"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// Validate builds every saved server of the workspace without serving it
// and returns the names of those that build cleanly, and every problem:
// files that cannot be read or built, and items a server would leave out.
func Validate(dir, environment string) ([]string, config.Diags) {
	settings, ds := readSettings(dir)
	if len(ds) > 0 {
		return nil, ds
	}
	vars, err := settings.Vars(environment)
	if err != nil {
		return nil, config.Diags{{File: dir, Msg: err.Error()}}
	}
	servers, all := ReadAll(dir)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var ok []string
	for _, s := range servers {
		cfg, mockAddr := Adapt(s, vars, HTTP)
		svc, err := runtime.NewService(cfg, runtime.Options{Logger: quiet, LookupEnv: noEnv})
		if err != nil {
			var bds config.Diags
			if !errors.As(err, &bds) {
				bds = config.Diags{{File: s.File, Msg: err.Error()}}
			}
			all = append(all, bds...)
			continue
		}
		if live := Live(svc, mockAddr); live != nil && len(live.Problems()) > 0 {
			all = append(all, live.Problems()...)
			continue
		}
		ok = append(ok, s.Name)
	}
	return ok, all
}

// Configs returns the config of every saved server of the workspace, by server name, adapted
// as for HTTP: what `octo test` runs a workspace's cases on. Problems are those of reading
// the files; building them is the caller's.
func Configs(dir, environment string) (map[string]*config.Config, config.Diags) {
	settings, ds := readSettings(dir)
	if len(ds) > 0 {
		return nil, ds
	}
	vars, err := settings.Vars(environment)
	if err != nil {
		return nil, config.Diags{{File: dir, Msg: err.Error()}}
	}
	servers, ds := ReadAll(dir)
	out := make(map[string]*config.Config, len(servers))
	for _, s := range servers {
		out[s.Name], _ = Adapt(s, vars, HTTP)
	}
	return out, ds
}

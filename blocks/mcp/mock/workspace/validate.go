package workspace

import (
	"errors"
	"io"
	"log/slog"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
	"gopkg.in/yaml.v3"
)

// Validate builds every saved server of the workspace without serving it
// and returns the names of those that build cleanly, and every problem:
// files that cannot be read or built, and items a server would leave out.
func Validate(dir, environment string) ([]string, config.Diags) {
	vars, cluster, servers, all, read := readWorkspace(dir, environment)
	if !read {
		return nil, all
	}
	var ok []string
	for _, s := range servers {
		if ds := buildProblems(s, vars, cluster); len(ds) > 0 {
			all = append(all, ds...)
			continue
		}
		ok = append(ok, s.Name)
	}
	return ok, all
}

// buildProblems builds a saved server with the variables vars without serving it, and returns
// why it cannot be built or what it would leave out.
func buildProblems(s *Server, vars map[string]string, cluster *yaml.Node) config.Diags {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg, mockAddr := Adapt(s, vars, cluster, HTTP)
	svc, err := runtime.NewService(cfg, runtime.Options{Logger: quiet, LookupEnv: noEnv})
	if err != nil {
		var ds config.Diags
		if !errors.As(err, &ds) {
			ds = config.Diags{{File: s.File, Msg: err.Error()}}
		}
		return ds
	}
	if live := Live(svc, mockAddr); live != nil {
		return live.Problems()
	}
	return nil
}

// Configs returns the config of every saved server of the workspace, by server name, adapted
// as for HTTP: what `octo test` runs a workspace's cases on. Problems are those of reading
// the files; building them is the caller's.
func Configs(dir, environment string) (map[string]*config.Config, config.Diags) {
	vars, _, servers, ds, ok := readWorkspace(dir, environment)
	if !ok {
		return nil, ds
	}
	out := make(map[string]*config.Config, len(servers))
	for _, s := range servers {
		out[s.Name], _ = Adapt(s, vars, nil, HTTP) // octo test runs a server alone
	}
	return out, ds
}

// readWorkspace reads the settings, the environment's variables and the saved servers. ok is
// false when the settings cannot be used; the servers that could not be read are in ds.
func readWorkspace(dir, environment string) (vars map[string]string, cluster *yaml.Node, servers []*Server, ds config.Diags, ok bool) {
	settings, ds := readSettings(dir)
	if len(ds) > 0 {
		return nil, nil, nil, ds, false
	}
	vars, err := settings.Vars(environment)
	if err != nil {
		return nil, nil, nil, config.Diags{{File: dir, Msg: err.Error()}}, false
	}
	servers, ds = ReadAll(dir)
	return vars, settings.Cluster, servers, ds, true
}

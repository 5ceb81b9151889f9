package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Load reads the config at path: a folder, whose *.yaml and *.yml files (sorted by name,
// dotfiles skipped) together form one config with resources read relative to it, or a single
// file, with resources read relative to its folder. `${VAR}` is looked up with lookupEnv
// (os.LookupEnv when nil) and then in the declared defaults. On any problem it returns a nil
// Config and an error that is a Diags holding every problem found, sorted.
func Load(path string, lookupEnv func(string) (string, bool)) (*Config, error) {
	cfg, err := LoadPartial(path, lookupEnv)
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// LoadPartial is Load, except that along with the problems it returns what of the config is
// sound, so that a build can find the problems of the rest in the same run: the config without
// the connectors, flows and templates that have problems (a flow whose source alone has one is
// kept without its source), with Missing saying which names may have been left out. When a file
// cannot be read or parsed, the names it would declare are unknown: a flow's connector or a
// `${VAR}` not declared elsewhere is then not reported, and the item that uses it is left out.
// The Config is nil only when path holds no config files.
func LoadPartial(path string, lookupEnv func(string) (string, bool)) (*Config, error) {
	if lookupEnv == nil {
		lookupEnv = os.LookupEnv
	}
	files, dir, problem := findFiles(path)
	if problem != nil {
		return nil, Diags{*problem}.Err()
	}
	l := &loader{
		cfg: &Config{Dir: dir, Files: files, Templates: map[string]*Template{}, Sources: Sources{}},
		d:   &decoder{},
	}
	var secs []section
	for _, f := range files {
		for _, root := range l.readFile(f) {
			secs = append(secs, l.sections(root, Where{File: f})...)
		}
	}
	vs := l.env(secs, lookupEnv)
	vs.partial = l.broken
	var interpolated Diags
	for _, s := range secs {
		if s.key != "env" {
			vs.interpolate(s.val, s.at, &interpolated)
		}
	}
	l.cfg.Interpolated = vs.done
	l.parse(secs)
	labelDiags(interpolated, l.labelled())
	labelDiags(l.parsed, l.labelled())
	all := append(append(l.d.diags, l.parsed...), interpolated...)
	err := all.Err()
	if err != nil || len(vs.unsure) > 0 {
		l.prune(append(all, unsureDiags(vs.unsure)...))
	}
	return l.cfg, err
}

// Files lists the YAML files Load reads for path, named as Load names them: what a watcher of
// the config stamps, besides its template resources.
func Files(path string) ([]string, error) {
	files, _, problem := findFiles(path)
	if problem != nil {
		return nil, Diags{*problem}.Err()
	}
	return files, nil
}

// findFiles resolves path to the YAML files to read and the folder resources are relative to.
// Paths stay as the user gave them, so diagnostics name files the way the user knows them.
func findFiles(path string) (files []string, dir string, problem *Diag) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", &Diag{File: path, Msg: "config path does not exist"}
	}
	if err != nil {
		return nil, "", &Diag{File: path, Msg: "cannot read config path: " + osMessage(err)}
	}
	if info.Mode()&special != 0 {
		return nil, "", &Diag{File: path, Msg: "config path is " + fileKind(info.Mode()) + ", not a file or folder"}
	}
	if !info.IsDir() {
		return []string{path}, filepath.Dir(path), nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, "", &Diag{File: path, Msg: "cannot read config folder: " + osMessage(err)}
	}
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		// Dotfiles are editor backups and lock files, not config. FIFOs,
		// devices and sockets are left out too; a link is followed when read.
		listed := e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0
		if !listed || strings.HasPrefix(e.Name(), ".") || ext != ".yaml" && ext != ".yml" {
			continue
		}
		files = append(files, filepath.Join(path, e.Name()))
	}
	if len(files) == 0 {
		return nil, "", &Diag{File: path, Msg: "no config files (*.yaml, *.yml) in this folder"}
	}
	return files, path, nil
}

// readFile parses every YAML document of file with its aliases and merge keys resolved,
// reporting read and syntax errors.
func (l *loader) readFile(file string) []*yaml.Node {
	data, err := ReadFile(file)
	var notRegular *NotRegularError
	switch {
	case errors.Is(err, ErrTooLarge), errors.As(err, &notRegular):
		l.d.diags = append(l.d.diags, Diag{File: file, Msg: "config file is " + err.Error()})
		l.broken = true
		return nil
	case err != nil:
		l.d.diags = append(l.d.diags, Diag{File: file, Msg: "cannot read file: " + osMessage(err)})
		l.broken = true
		return nil
	}
	l.cfg.Sources[file] = data
	roots, ds := Parse(file, data)
	l.parsed = append(l.parsed, ds...)
	for _, d := range ds {
		// A problem of the file as a whole (its syntax, its size) leaves out what it declares
		// from there on.
		l.broken = l.broken || d.Path == ""
	}
	return roots
}

// yamlMessage strips yaml.v3's "yaml: line N:" prefix; the position is reported separately.
func yamlMessage(err error) string {
	msg := err.Error()
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		return m[2]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	return msg
}

// osMessage is an os error without the path, which the diagnostic already names.
func osMessage(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// labelDiags gives path-only diagnostics the kind and name of the innermost item they fall in.
func labelDiags(ds Diags, items []Where) {
	for i := range ds {
		best := -1
		for j, w := range items {
			if w.File == ds[i].File && within(ds[i].Path, w.Path) && (best < 0 || len(w.Path) > len(items[best].Path)) {
				best = j
			}
		}
		if best >= 0 {
			ds[i].Kind, ds[i].Name = items[best].Kind, items[best].Name
		}
	}
}

// within reports whether path is prefix or lies below it.
func within(path, prefix string) bool {
	if !strings.HasPrefix(path, prefix) {
		return false
	}
	return len(path) == len(prefix) || path[len(prefix)] == '.' || path[len(prefix)] == '['
}

// items lists the location of every labelled item, for labelDiags.
func (l *loader) labelled() []Where {
	c := l.cfg
	out := slices.Clone(l.templates) // all of them, also those that failed to load
	for _, cn := range c.Connectors {
		out = append(out, cn.At)
	}
	for _, f := range c.Flows {
		out = append(out, f.At)
		for _, b := range f.Process {
			out = append(out, b.At)
		}
	}
	return out
}

package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/printable"
)

// DefaultPort is the first port a saved server without one gets.
const DefaultPort = 3004

// Server is one saved server as read from its file.
type Server struct {
	// Name is the file's `name`, or the file name without .yaml.
	Name string
	File string
	// Port is the port written in the file, or the one assigned; 0 asks the
	// system for any free port.
	Port int
	// PortSet tells a port written in the file from an assigned one.
	PortSet bool
	// Kind is what the server is: KindMCP (an mcp-mock) or KindHTTP (an http-mock).
	Kind string
	// Path is where clients reach it: the Streamable HTTP path (mcp.path, default /mcp), or /
	// for an HTTP mock, which takes every path.
	Path string
	// CORS lets browsers on other origins in (mcp.cors, http.cors).
	CORS bool

	root    *yaml.Node
	section *yaml.Node // the mcp: or http: mapping, as Kind says; never nil
	data    []byte     // the file as read, to tell a real edit from a touch
}

// The kinds of saved server.
const (
	KindMCP  = "mcp"  // an MCP server: the mcp-mock block, its mcp: section
	KindHTTP = "http" // an HTTP API: the http-mock block, its http: section
)

// fileSettings are a saved server's top-level keys. The mcp (or http) section is handed to the
// mcp-mock (or http-mock) block as written.
type fileSettings struct {
	Name string     `yaml:"name" doc:"The server's name: its serverInfo.name unless mcp.serverName says otherwise; default: the file name without .yaml."`
	Kind string     `yaml:"kind" default:"mcp" enum:"mcp,http" doc:"The kind of saved server: mcp, an MCP server (its mcp: section); http, an HTTP API (its http: section)."`
	Port *int       `yaml:"port" min:"0" max:"65535" doc:"The port it listens on, on 127.0.0.1; default: 3004 or the next one no other saved server uses; 0: any free port."`
	MCP  *yaml.Node `yaml:"mcp" block:"mcp-mock" doc:"An MCP server (kind mcp): the mcp-mock block's settings (tools, resources, prompts, limits)."`
	HTTP *yaml.Node `yaml:"http" block:"http-mock" doc:"An HTTP API (kind http): the http-mock block's settings (routes, variables, seed, cors)."`
}

// ReadServer reads and checks one saved server file, servers/<name>.yaml in
// a workspace folder (see readServer).
func ReadServer(file string) (*Server, config.Diags) {
	return readServer(filepath.Dir(filepath.Dir(file)), file)
}

// readServer reads and checks one saved server file of the workspace at
// root (only what lies inside it, see readFile). Its mcp section is checked later, when the server is built.
func readServer(root, file string) (*Server, config.Diags) {
	data, ds := readFile(root, file)
	if len(ds) > 0 {
		return nil, ds
	}
	return parseServer(file, data)
}

// parseServer checks one saved server file's text.
func parseServer(file string, data []byte) (*Server, config.Diags) {
	root, ds := parseYAML(file, data)
	if len(ds) > 0 {
		return nil, ds
	}
	if root == nil {
		return nil, config.Diags{{File: file, Msg: "the file is empty; a saved server needs name, kind: mcp, port and mcp"}}
	}
	var fset fileSettings
	at := config.Where{File: file}
	if ds := config.Decode(root, &fset, at); len(ds) > 0 {
		return nil, ds
	}
	s := &Server{Name: fset.Name, Kind: fset.Kind, File: file, Path: "/mcp", root: root, data: data}
	if s.Kind == "" {
		s.Kind = KindMCP
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if !printable.Safe(s.Name) { // it is shown in terminals, logs and approvals
		_, n := entry(root, "name")
		if n == nil {
			n = root
		}
		return nil, config.Diags{{File: file, Line: n.Line, Col: n.Column,
			Msg: fmt.Sprintf("server name %q holds a control or invisible character: use letters, digits, spaces and punctuation", s.Name)}}
	}
	if fset.Port != nil {
		s.Port, s.PortSet = *fset.Port, true
	}
	s.readSection(at, &ds)
	if len(ds) > 0 {
		return nil, ds
	}
	return s, nil
}

// readSection finds the section of the server's kind and reads the settings the adapter needs
// from it (path, cors); the block checks the rest. The other kind's section is refused: it
// would be ignored.
func (s *Server) readSection(at config.Where, ds *config.Diags) {
	key, other := KindMCP, KindHTTP
	if s.Kind == KindHTTP {
		key, other = KindHTTP, KindMCP
		s.Path = "/"
	}
	if k, _ := entry(s.root, other); k != nil {
		ds.Addf(k, at.Field(other), "a server of kind %s has an %s: section, not %s: (or set kind: %s)", s.Kind, key, other, other)
	}
	_, s.section = entry(s.root, key)
	switch {
	case s.section == nil || s.section.Kind == yaml.ScalarNode && s.section.ShortTag() == "!!null":
		s.section = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: s.root.Line, Column: s.root.Column}
	case s.section.Kind != yaml.MappingNode && s.Kind == KindHTTP:
		ds.Addf(s.section, at.Field(key), "expected a mapping of routes and server settings")
	case s.section.Kind != yaml.MappingNode:
		ds.Addf(s.section, at.Field(key), "expected a mapping of tools, resources, prompts and server settings")
	}
	if p := value(s.section, "path"); p != nil && p.Kind == yaml.ScalarNode && p.Value != "" && s.Kind == KindMCP {
		s.Path = p.Value
	}
	if c := value(s.section, "cors"); c != nil && c.Kind == yaml.ScalarNode && c.ShortTag() == "!!bool" {
		s.CORS = strings.EqualFold(c.Value, "true")
	}
}

// parseYAML parses a file that holds one YAML document, with its aliases and merge keys
// resolved (config.Parse: bounded, so an alias bomb is refused at its line); nil for an empty one.
func parseYAML(file string, data []byte) (*yaml.Node, config.Diags) {
	roots, ds := config.Parse(file, data)
	switch {
	case len(ds) > 0:
		return nil, ds
	case len(roots) > 1:
		return nil, config.Diags{{File: file, Line: roots[1].Line, Msg: "a saved server is one YAML document; remove the extra ---"}}
	case len(roots) == 0:
		return nil, nil
	}
	return roots[0], nil
}

// serverFiles lists the saved server files, sorted, leaving out dotfiles
// (editor backups and lock files) and what cannot be a file (see listable).
func serverFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, ServersDir))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var files []string
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !listable(e) || strings.HasPrefix(e.Name(), ".") || ext != ".yaml" && ext != ".yml" {
			continue
		}
		files = append(files, filepath.Join(dir, ServersDir, e.Name()))
	}
	slices.Sort(files)
	return files, nil
}

// nextPort returns the first port from DefaultPort that is not in used.
func nextPort(used map[int]bool) int {
	p := DefaultPort
	for used[p] {
		p++
	}
	return p
}

// usedPorts reports the ports the saved servers of dir take.
func usedPorts(dir string) func(int) bool {
	servers, _ := ReadAll(dir)
	used := map[int]bool{}
	for _, s := range servers {
		used[s.Port] = true
	}
	return func(p int) bool { return used[p] }
}

// ReadAll reads every saved server of the workspace and assigns ports to
// those without one. Files that cannot be read, repeat another's name or
// port come back as problems and are left out.
func ReadAll(dir string) ([]*Server, config.Diags) {
	files, err := serverFiles(dir)
	if err != nil {
		return nil, config.Diags{{File: filepath.Join(dir, ServersDir), Msg: "cannot read folder: " + osMessage(err)}}
	}
	var (
		out  []*Server
		ds   config.Diags
		used = map[int]bool{}
	)
	for _, f := range files {
		s, fds := readServer(dir, f)
		if len(fds) > 0 {
			ds = append(ds, fds...)
			continue
		}
		if clash := clashes(s, out); clash != "" {
			ds = append(ds, config.Diag{File: f, Line: s.root.Line, Col: s.root.Column, Msg: clash + "; this server is not started"})
			continue
		}
		if s.PortSet && s.Port != 0 {
			used[s.Port] = true
		}
		out = append(out, s)
	}
	for _, s := range out {
		if !s.PortSet {
			s.Port = nextPort(used)
			used[s.Port] = true
		}
	}
	return out, ds
}

// clashes says why s cannot run beside others: the same name or port.
func clashes(s *Server, others []*Server) string {
	for _, o := range others {
		if strings.EqualFold(o.Name, s.Name) {
			return fmt.Sprintf("server name %q is already used by %s", s.Name, o.File)
		}
		if s.PortSet && o.PortSet && s.Port != 0 && s.Port == o.Port {
			return fmt.Sprintf("port %d is already used by %s", s.Port, o.File)
		}
	}
	return ""
}

// entry returns the key and value nodes of key in mapping n, or nils.
func entry(n *yaml.Node, key string) (k, v *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

func value(n *yaml.Node, key string) *yaml.Node {
	_, v := entry(n, key)
	return v
}

// readYAML reads and parses one file of the workspace at root.
func readYAML(root, file string) (*yaml.Node, config.Diags) {
	data, ds := readFile(root, file)
	if len(ds) > 0 {
		return nil, ds
	}
	return parseYAML(file, data)
}

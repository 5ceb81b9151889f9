// Package web holds the console's page: static HTML, CSS and JavaScript modules embedded in
// the binary (no build step, nothing fetched from the network), and the list of paths the
// console serves, which `octo app`'s embedded config routes to the console block. It is a
// leaf: the app (which routes) and the console (which answers) both import it.
package web

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

//go:embed static
var static embed.FS

// Files are the page's files, index.html at the root.
func Files() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has it
	}
	return sub
}

// API lists the console API's paths (the console package answers each; a test holds the two
// lists together).
var API = []string{
	"/api/state", "/api/call", "/api/yaml", "/api/new", "/api/rename", "/api/duplicate",
	"/api/delete", "/api/undo", "/api/tool-enabled", "/api/workspace-yaml", "/api/traffic",
	"/api/traffic/clear", "/api/traffic/export", "/api/events", "/api/answer", "/api/disconnect",
	"/api/settings", "/api/variables",
}

// Login is the path of the console's login link (the console package answers it).
const Login = "/login"

// Paths are every path the console serves: "/" (the page), the login link, each static file,
// and the API.
func Paths() []string {
	paths := []string{"/", Login}
	_ = fs.WalkDir(Files(), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && p != "index.html" {
			paths = append(paths, "/"+p)
		}
		return err
	})
	paths = append(paths, API...)
	slices.Sort(paths)
	return paths
}

// File is the static file served at path, "" when none: "/" is index.html.
func File(path string) string {
	if path == "/" {
		return "index.html"
	}
	name := strings.TrimPrefix(path, "/")
	if name == "index.html" || !fs.ValidPath(name) {
		return ""
	}
	if _, err := fs.Stat(Files(), name); err != nil {
		return ""
	}
	return name
}

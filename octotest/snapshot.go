package octotest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/runtime/jsonv"
)

// snapshot is what an mcp case was answered, as --update writes it into the case's expect: the
// result as body (its ignored values left out), or the JSON-RPC error.
type snapshot struct {
	body *yaml.Node // nil for an error
	err  *rpcErr
	// isError is a tool result's isError; false for anything else.
	isError bool
}

// snapshotOf is the snapshot of an answer: a result (raw JSON) or an error, with e's ignored
// paths left out of the result.
func snapshotOf(result json.RawMessage, rerr *rpcErr, e *Expect, tool bool) (*snapshot, error) {
	if rerr != nil {
		return &snapshot{err: rerr}, nil
	}
	var doc yaml.Node
	// JSON is YAML: decoded so, the result keeps its keys' order and its numbers stay numbers.
	if err := yaml.Unmarshal(result, &doc); err != nil || len(doc.Content) != 1 {
		return nil, fmt.Errorf("the result does not read as YAML: %v", err)
	}
	body := doc.Content[0]
	for _, p := range ignored(e) {
		dropNode(body, p)
	}
	blockStyle(body)
	s := &snapshot{body: body}
	if tool {
		v, err := jsonv.Decode(result)
		if err != nil {
			return nil, err
		}
		s.isError, _ = v.(map[string]any)["isError"].(bool)
	}
	return s, nil
}

// key is the expect key the snapshot writes.
func (s *snapshot) key() string {
	if s.err != nil {
		return "error"
	}
	return "body"
}

// apply makes e expect the snapshot: body or error, and isError, as --update writes them.
func (s *snapshot) apply(e *Expect) {
	e.Body, e.Error, e.IsError = s.body, nil, nil
	if s.err != nil {
		e.Body, e.Error = nil, &RPCError{Code: s.err.Code, Message: s.err.Message}
	}
	if s.isError {
		e.IsError = &s.isError
	}
}

// differs reports whether the snapshot says something other than what e expects.
func (s *snapshot) differs(e *Expect) bool {
	if (e.Error == nil) != (s.err == nil) || (e.Body == nil) != (s.body == nil) {
		return true
	}
	if s.err != nil {
		return e.Error.Code != s.err.Code || e.Error.Message != s.err.Message
	}
	if (e.IsError != nil && *e.IsError) != s.isError {
		return true
	}
	want, err1 := valueOf(e.Body)
	got, err2 := valueOf(s.body)
	return err1 != nil || err2 != nil || len(compare("", want, got, false)) > 0
}

// ignored is e's ignore paths, split.
func ignored(e *Expect) [][]string {
	var out [][]string
	for _, p := range e.Ignore {
		if parts, err := splitPath(p); err == nil {
			out = append(out, parts)
		}
	}
	return out
}

// Any is the path key that matches every key of an object and every item of a list, in
// expect.ignore.
const Any = "*"

// drop removes the values at path from v: a key from its object; an item of a list becomes
// null, so the items after it keep their places.
func drop(v any, path []string) {
	if len(path) == 0 {
		return
	}
	k, last := path[0], len(path) == 1
	switch c := v.(type) {
	case map[string]any:
		for key, val := range c {
			if k == Any || k == key {
				if last {
					delete(c, key)
				} else {
					drop(val, path[1:])
				}
			}
		}
	case []any:
		for i := range c {
			if k == Any || k == strconv.Itoa(i) {
				if last {
					c[i] = nil
				} else {
					drop(c[i], path[1:])
				}
			}
		}
	}
}

// dropNode is drop on a YAML value.
func dropNode(n *yaml.Node, path []string) {
	if len(path) == 0 {
		return
	}
	k, last := path[0], len(path) == 1
	switch n.Kind {
	case yaml.MappingNode:
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			if k == Any || k == key.Value {
				if last {
					continue
				}
				dropNode(val, path[1:])
			}
			kept = append(kept, key, val)
		}
		n.Content = kept
	case yaml.SequenceNode:
		for i, item := range n.Content {
			if k == Any || k == strconv.Itoa(i) {
				if last {
					n.Content[i] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
				} else {
					dropNode(item, path[1:])
				}
			}
		}
	}
}

// blockStyle writes n as YAML is written by hand: objects and lists in block style, text
// quoted only where it would read as something else, text of several lines as a literal block.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// rewrite writes each case of file the edits name (by their index among the file's cases) with
// its snapshot, keeping the rest of the file: its comments, its other keys.
func rewrite(file string, edits map[int]*snapshot) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	cases := valueAt(doc.Content[0], "cases")
	if cases == nil || cases.Kind != yaml.SequenceNode {
		return fmt.Errorf("%s: no cases list to update", file)
	}
	for _, i := range slices.Sorted(maps.Keys(edits)) {
		if i >= len(cases.Content) || cases.Content[i].Kind != yaml.MappingNode {
			return fmt.Errorf("%s: case %d changed while the cases ran", file, i+1)
		}
		expect := valueAt(cases.Content[i], "expect")
		if expect == nil || expect.Kind != yaml.MappingNode {
			expect = &yaml.Node{Kind: yaml.MappingNode}
			setKey(cases.Content[i], "expect", expect)
		}
		if expect.Style&yaml.FlowStyle != 0 {
			// A flow-style expect: { ... } would put the body on one line. In block style its
			// line comment goes after the key, where it was on the line.
			expect.Style = 0
			if k := keyAt(cases.Content[i], "expect"); k != nil && k.LineComment == "" {
				k.LineComment, expect.LineComment = expect.LineComment, ""
			}
		}
		s := edits[i]
		delKey(expect, "body")
		delKey(expect, "error")
		delKey(expect, "isError")
		if s.isError {
			setKey(expect, "isError", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
		}
		if s.err != nil {
			errNode := &yaml.Node{}
			if err := errNode.Encode(map[string]any{"code": s.err.Code, "message": s.err.Message}); err != nil {
				return err
			}
			setKey(expect, "error", errNode)
		} else {
			setKey(expect, "body", s.body)
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if _, ds := parseFile(file, buf.Bytes()); len(ds) > 0 {
		return fmt.Errorf("%s: the updated file would not load (a bug of octo test: please report it): %w", file, ds)
	}
	return writeFile(file, buf.Bytes())
}

// writeFile replaces file with data at once, keeping its mode: a run stopped midway leaves the
// old file or the new one, never half of one.
func writeFile(file string, data []byte) error {
	mode := os.FileMode(0o644)
	if info, err := os.Stat(file); err == nil {
		mode = info.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".octo-test-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// valueAt is the value of key in mapping m, nil when it has none.
func valueAt(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// keyAt is the key node of key in mapping m, nil when it has none.
func keyAt(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i]
		}
	}
	return nil
}

// setKey sets key in mapping m to v, at its place when m has it, else last.
func setKey(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

// delKey removes key from mapping m.
func delKey(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
}

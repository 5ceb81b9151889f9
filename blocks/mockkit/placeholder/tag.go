package placeholder

import (
	"fmt"
	"strconv"
	"strings"
)

// tagKind is what a tag refers to.
type tagKind uint8

const (
	tagArgs   tagKind = iota // {{args}} or {{args.a.b}}; {{body}} or {{body.a.b}}
	tagParams                // {{params}} or {{params.id}}; {{query…}} and {{headers…}} alike
	tagName                  // {{name}}: a variable or a reuse name, resolved later
	tagDyn                   // {{$name …}} with an optional "as name"
)

// pathPart is one step of an args path; index is its value as an array index, or -1.
type pathPart struct {
	key   string
	index int
}

type parsedTag struct {
	raw   *rawTag
	kind  tagKind
	src   source     // tagArgs, tagParams: which of the request's values
	path  []pathPart // tagArgs; nil for the whole map
	name  string     // tagParams key ("" for all), tagName name
	call  dynCall    // tagDyn
	alias string     // tagDyn with "as"
}

// parseTag understands one tag body, or returns an error message for it.
func parseTag(t *rawTag) (parsedTag, string) {
	p := parsedTag{raw: t}
	words := strings.Fields(t.body)
	if len(words) == 0 {
		return p, "empty tag"
	}
	if strings.HasPrefix(words[0], "$") {
		return parseDynamic(p, words)
	}
	if len(words) > 1 {
		return p, fmt.Sprintf("%q takes no arguments: only $name tags do", words[0])
	}
	w := words[0]
	switch {
	case root(w) == "args" || root(w) == "body":
		p.src = srcArgs
		if root(w) == "body" {
			p.src = srcBody
		}
		return parseArgs(p, w)
	case root(w) == "params" || root(w) == "query" || root(w) == "headers":
		p.kind, p.src = tagParams, sourceNamed[root(w)]
		if rest, dotted := strings.CutPrefix(w, root(w)+"."); dotted {
			// URI template names may hold dots ({user.id}), and so may query names: the rest
			// is one key.
			p.name = rest
			if p.name == "" {
				return p, fmt.Sprintf("%q needs a name after the dot", w)
			}
		}
		return p, ""
	case isName(w, true):
		p.kind, p.name = tagName, w
		return p, ""
	}
	return p, fmt.Sprintf("%q is not a tag: write args.NAME, params.NAME, a variable name or $name", w)
}

// root is a tag word's first part: "args" in args.city.
func root(w string) string {
	head, _, _ := strings.Cut(w, ".")
	return head
}

func parseArgs(p parsedTag, w string) (parsedTag, string) {
	p.kind = tagArgs
	head := root(w)
	if w == head {
		return p, ""
	}
	for _, key := range strings.Split(strings.TrimPrefix(w, head+"."), ".") {
		if key == "" {
			return p, fmt.Sprintf("%q has an empty path part", w)
		}
		index := -1
		if n, err := strconv.Atoi(key); err == nil && n >= 0 && allDigits(key) {
			index = n
		}
		p.path = append(p.path, pathPart{key: key, index: index})
	}
	return p, ""
}

func parseDynamic(p parsedTag, words []string) (parsedTag, string) {
	p.kind = tagDyn
	name := words[0]
	if name == "$" {
		return p, `"$" needs a name, as in $uuid`
	}
	args := words[1:]
	if n := len(args); n > 0 && args[n-1] == "as" {
		return p, fmt.Sprintf(`"as" needs a name after it, as in {{%s as order}}`, name)
	}
	if n := len(args); n >= 2 && args[n-2] == "as" {
		p.alias = args[n-1]
		args = args[:n-2]
		if !isName(p.alias, false) {
			return p, fmt.Sprintf("%q is not a valid name to reuse: use letters, digits, _ and -, starting with a letter or _", p.alias)
		}
		if _, reserved := sourceNamed[p.alias]; reserved {
			return p, fmt.Sprintf("%q is reserved and cannot name a value", p.alias)
		}
	}
	spec, ok := dynamics[name]
	if !ok {
		return p, fmt.Sprintf("unknown dynamic variable %q%s", name, didYouMean(suggest(name, dynamicNames)))
	}
	call, msg := bind(name, spec, args)
	p.call = call
	return p, msg
}

// isName reports whether s is a variable name: a letter or '_' first, then letters,
// digits, '_' and '-'; dots too when dots is set (variables like "api.host").
func isName(s string, dots bool) bool {
	if s == "" || !(isLetter(s[0]) || s[0] == '_') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == '-' || (dots && c == '.')) {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// source is which of a request's values a tag reads.
type source uint8

const (
	srcArgs    source = iota // an MCP call's arguments
	srcBody                  // an HTTP request's JSON body
	srcParams                // a resource template's parts, or an HTTP route's path parameters
	srcQuery                 // an HTTP request's query parameters
	srcHeaders               // an HTTP request's headers, lower-case names
)

// sourceNamed are the words that name a source, and so cannot name a reused value.
var sourceNamed = map[string]source{"args": srcArgs, "body": srcBody, "params": srcParams, "query": srcQuery, "headers": srcHeaders}

// sourceNames are the sources as written, by source.
var sourceNames = [...]string{srcArgs: "args", srcBody: "body", srcParams: "params", srcQuery: "query", srcHeaders: "headers"}

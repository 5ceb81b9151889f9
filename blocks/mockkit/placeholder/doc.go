// Package placeholder is the mock server's answer language: the {{…}} tags in a mock
// tool's result, a resource's text and a prompt message's text.
//
// It owns parsing, checking and rendering those tags and the fake-data generator behind
// them. It must not know about MCP, YAML, files or the runtime: callers hand it text and
// variables at build time, and request values at render time, and map the positions in
// its errors back to their own files. REFERENCE.md is the user-facing reference.
//
// Tags:
//
//	{{args.city}}           a tool or prompt argument; dotted paths go deeper ({{args.address.zip}}),
//	                        a number steps into an array ({{args.items.0}}); {{args}} is all of them as JSON
//	{{params.id}}           a URI template part of a resource read (dots belong to the name); {{params}} is all
//	{{name}}                a variable of the active environment or workspace, filled in at Compile;
//	                        names are a letter or _ then letters, digits, _, - and .
//	{{$name}}               a fresh fake value per occurrence; some take arguments: {{$randomInt 1 10}}
//	{{$name … as order}}    draws once, writes it here, and {{order}} anywhere in the same text repeats it
//	\{{                     a literal {{
//
// Whitespace inside the braces is free ({{ args.city }}). A string argument is written as
// is; numbers, booleans, null, objects and arrays as JSON. A missing argument writes
// nothing. Variables and client values are inserted as data and never scanned for tags,
// so a client that sends "{{token}}" gets that text back, not the variable.
//
// When the text is JSON (its first non-blank character is a literal '{' or '['), every
// tag is written to keep it JSON: inside a string literal values are escaped; elsewhere
// a value is written as a JSON value (strings quoted, numbers and booleans bare, a
// missing argument as null, a variable raw when it is JSON and quoted when not).
//
// Compile checks everything once and reports every bad tag with its line and column;
// Render only copies prepared segments and draws values. A Rand made with NewRand(seed,
// clock) makes answers reproducible.
package placeholder

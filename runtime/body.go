package runtime

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/octo-run/octo/runtime/config"
)

// What body.name reads is checked where the body's keys are known at build time, as env.NAME
// and vars.name are (see names.go): in a router's prompt the body is the prompt's arguments, in
// a resource template its URI template's parameters, and at the start of a tool's branch the
// properties its inputSchema declares. A block that keeps the body as it came (BlockSpec
// KeepsBody: a log, a progress step) leaves it known for the blocks after it; after any other
// block, what the body holds is known only at run time and nothing is checked. A typo that
// would render an empty string, or send an API an empty value, is a build error instead.

// answersTag is the struct tag of a Branch field whose blocks' answer is not their flow's
// exchange but what the tag names ("the tool's result"): see BlockSpec.AnswersExchange.
const answersTag = "answers"

// bodyTag is the struct tag of a Branch field saying what its blocks start with: "kept", the
// body its block got.
const bodyTag = "body"

// BodyKeys are the keys a body can have at its top level, and what they are, for messages.
type BodyKeys struct {
	Names []string // every key the body can have
	// What is one key as a message names it: "a property of the inputSchema", "an argument of
	// the prompt".
	What string
	// Fix says how to make a key one of them: "declare it under inputSchema.properties".
	Fix string
}

// BodyDescriber is implemented by settings whose branches and templates run with a body that
// the settings themselves describe: a router's tool (its arguments, which its inputSchema
// declares), prompt (its arguments) and resource (its URI template's parameters). Fields are
// decoded in the order they are declared, so Body sees the fields before the branch or
// template.
type BodyDescriber interface {
	// Body describes the body; nil when it may hold keys that are not known at build.
	Body() *BodyKeys
}

// unknownKey says why body.name cannot be read: the key closest to it, or those there are.
func (k *BodyKeys) unknownKey(name string) string {
	msg := fmt.Sprintf("%q is not %s", name, k.What)
	if s := config.Suggest(name, k.Names); s != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(k.Names) == 0 {
		msg += " (there are none)"
	} else {
		msg += " (known: " + strings.Join(k.Names, ", ") + ")"
	}
	if k.Fix != "" {
		msg += "; " + k.Fix
	}
	return msg
}

// has reports whether the body can have key name; any key when k is nil.
func (k *BodyKeys) has(name string) bool { return k == nil || slices.Contains(k.Names, name) }

// describedBody is the body a field's settings describe, and whether they describe one.
func describedBody(f config.HookField) (*BodyKeys, bool) {
	if !f.In.IsValid() || f.In.Kind() != reflect.Pointer {
		return nil, false
	}
	d, ok := f.In.Interface().(BodyDescriber)
	if !ok {
		return nil, false
	}
	return d.Body(), true
}

package mcp

import "slices"

// This file keeps the list methods to the fields of the revision a client speaks: a field a
// revision does not define (a tool's icons before 2025-11-25, titles before 2025-06-18) is left
// out of what that client is listed, so strict clients of older revisions never meet it. A
// sessionless request that names no revision (a plain curl to the router) is assumed to be
// 2025-03-26 for the protocol's rules, but nothing is left out of its lists: it did not say.

// Field tiers: the revisions that added list fields, oldest first. tierLatest is 2025-11-25
// and later (2026-07-28), and a request whose revision is unknown.
const (
	tier20241105 = iota
	tier20250326 // tool annotations
	tier20250618 // title (tools, resources, templates, prompts, prompt arguments), outputSchema
	tierLatest   // icons
	fieldTiers
)

// tierOf is the field tier of a revision.
func tierOf(version string) int {
	switch {
	case version == "" || version >= Version20251125:
		return tierLatest
	case version >= Version20250618:
		return tier20250618
	case version >= Version20250326:
		return tier20250326
	}
	return tier20241105
}

// forTier returns items with the fields tier lacks left out, sharing items when nothing is.
func forTier[T any](items []T, tier int, trim func(*T, int) bool) []T {
	if tier == tierLatest {
		return items
	}
	var out []T
	for i := range items {
		item := items[i]
		if !trim(&item, tier) {
			continue
		}
		if out == nil {
			out = slices.Clone(items)
		}
		out[i] = item
	}
	if out == nil {
		return items
	}
	return out
}

// trimTool leaves out of t what tier lacks and reports whether anything was.
func trimTool(t *Tool, tier int) bool {
	had := trimNamed(&t.Title, &t.Icons, tier)
	if tier < tier20250618 && t.OutputSchema != nil {
		t.OutputSchema, had = nil, true
	}
	if tier < tier20250326 && t.Annotations != nil {
		t.Annotations, had = nil, true
	}
	return had
}

func trimResource(r *Resource, tier int) bool { return trimNamed(&r.Title, &r.Icons, tier) }

func trimTemplate(r *ResourceTemplate, tier int) bool { return trimNamed(&r.Title, &r.Icons, tier) }

// trimNamed leaves out an item's icons, and its title before 2025-06-18.
func trimNamed(title *string, icons *[]Icon, tier int) bool {
	had := *icons != nil || tier < tier20250618 && *title != ""
	*icons = nil
	if tier < tier20250618 {
		*title = ""
	}
	return had
}

func trimPrompt(p *Prompt, tier int) bool {
	had := trimNamed(&p.Title, &p.Icons, tier)
	if tier >= tier20250618 || !slices.ContainsFunc(p.Arguments, func(a PromptArgument) bool { return a.Title != "" }) {
		return had
	}
	p.Arguments = slices.Clone(p.Arguments)
	for i := range p.Arguments {
		p.Arguments[i].Title = ""
	}
	return true
}

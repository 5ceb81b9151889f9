package config

import "slices"

// Missing says which names a config LoadPartial returned may lack, because what declares them
// was left out: a build does not report such a name as unknown.
type Missing struct {
	Env       bool // a file was left out: `env.NAME` may be declared in it
	Templates bool // a file or a template resource was left out: an alias may name it
}

// prune leaves out of the config every item a diagnostic of ds falls in: connectors,
// templates and flows. A flow whose problems are all in its source keeps its process, without
// the source, so its blocks are still built and checked.
func (l *loader) prune(ds Diags) {
	c := l.cfg
	in := func(w Where) func(Diag) bool {
		return func(d Diag) bool { return d.File == w.File && within(d.Path, w.Path) }
	}
	left := map[string]bool{} // connectors left out for their own problems
	c.Connectors = slices.DeleteFunc(c.Connectors, func(cn *Connector) bool {
		out := slices.ContainsFunc(ds, in(cn.At))
		if out {
			left[cn.Name] = true
		}
		return out
	})
	for alias, t := range c.Templates {
		if slices.ContainsFunc(ds, in(t.At)) {
			delete(c.Templates, alias)
		}
	}
	c.Flows = slices.DeleteFunc(c.Flows, func(f *Flow) bool {
		source := in(f.At.Field("source"))
		// A source whose connector was left out for its own problems goes with it, as one
		// with problems of its own does: what is kept never names a connector it left out.
		if slices.ContainsFunc(ds, source) || left[f.Source.Connector] {
			f.Source = Source{At: f.Source.At}
		}
		flow := in(f.At)
		return slices.ContainsFunc(ds, func(d Diag) bool { return flow(d) && !source(d) })
	})
	c.Missing = Missing{Env: l.broken, Templates: l.broken || len(c.Templates) < len(l.templates)}
}

// unsureDiags stands for the values that read a name a file left out may declare: they leave
// out their item as a problem would, with nothing to report.
func unsureDiags(at []Where) Diags {
	ds := make(Diags, len(at))
	for i, w := range at {
		ds[i] = Diag{File: w.File, Path: w.Path}
	}
	return ds
}

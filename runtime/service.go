package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/memtrim"
)

// Options tune how a service is built.
type Options struct {
	Logger *slog.Logger
	// LookupEnv reads the process environment; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Shared holds the resources this build shares with other builds (bound
	// ports, key caches); nil gives the service a table of its own.
	Shared *Shared
	// Unit names what the service is a build of, so that a later build of
	// the same unit may take over what this one holds (see Holder).
	Unit string
	// Observer is told how flows, blocks and connectors run (metrics); nil observes nothing.
	Observer Observer
	// Alone builds the service without its cluster (service.cluster): what the replicas would
	// share stays in this process, as for octo test, which runs a config by itself.
	Alone bool
}

// Service is a built config: connectors with their flows attached, ready to
// start. Nothing in it listens until Start.
type Service struct {
	Name       string
	connectors []namedConnector
	lifecycle  []any
	logger     *slog.Logger
	instances  map[string]any // by address: see Instance
	// what UpdateFrom compares: the config built, its variables' values, the updatable blocks
	cfg       *config.Config
	env       map[string]string
	updatable []updatable

	mu      sync.Mutex
	started []any
}

type namedConnector struct {
	name string
	conn Connector
}

// NewService compiles every connector, flow and block of cfg. All problems are
// returned at once as config.Diags; nothing is built half way.
func NewService(cfg *config.Config, opts Options) (*Service, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	if opts.Shared == nil {
		opts.Shared = NewShared()
	}
	bd := &builder{cfg: cfg, env: resolveEnv(cfg, opts.LookupEnv), declared: declared(cfg), logger: opts.Logger, shared: opts.Shared,
		holder: Holder{Unit: opts.Unit, Build: builds.Add(1)}, instances: map[string]any{}, byName: map[string]named{}, observer: opts.Observer}
	svc := &Service{Name: cfg.Service.Name, logger: opts.Logger}
	if !opts.Alone {
		bd.buildCluster()
	}

	byName := map[string]Connector{}
	specs := map[string]ConnectorSpec{}
	for _, cc := range cfg.Connectors {
		conn, spec, ok := bd.buildConnector(cc)
		if !ok {
			continue
		}
		byName[cc.Name], specs[cc.Name] = conn, spec
		svc.connectors = append(svc.connectors, namedConnector{cc.Name, conn})
		bd.instances["connectors."+cc.Name] = conn
	}

	for _, fc := range cfg.Flows {
		flow := &Flow{Name: fc.Name, logger: opts.Logger.With("flow", fc.Name), span: NewSpanType("flow "+fc.Name, SpanInternal, Attr{"octo.flow", fc.Name})}
		if opts.Observer != nil {
			flow.probe = opts.Observer.Probe(Key{Kind: ProbeFlow, Service: cfg.Service.Name, Flow: fc.Name})
		}
		before := len(bd.diags)
		addr := "flows." + fc.Name
		bd.instances[addr] = flow
		bd.source = sourceOf(fc, specs)
		bd.readers = nil
		flow.process, _ = bd.buildProcess(fc.Process, fc.Name, addr+".process", varSet{}, nil) // a source sets no vars; its body is any
		flow.readers = bd.readers
		conn, ok := byName[fc.Source.Connector]
		if !ok || len(bd.diags) > before {
			continue // the config or connector build already said why
		}
		spec := specs[fc.Source.Connector]
		if fc.Source.Type != "" && fc.Source.Type != spec.Type {
			bd.report(fc.Source.Node, fc.Source.At.Field("type"), "source type %q does not match connector %q of type %q",
				fc.Source.Type, fc.Source.Connector, spec.Type)
			continue
		}
		bd.attach(conn, spec, fc, flow)
	}
	if len(bd.diags) > 0 {
		bd.diags.Sort()
		return nil, bd.diags
	}
	svc.lifecycle, svc.instances = bd.lifecycle, bd.instances
	svc.cfg, svc.env, svc.updatable = cfg, bd.env, bd.updatable
	return svc, nil
}

// declared lists the names of cfg's variables, in order: what env.NAME may name; nil, which
// checks no name, when a file that may declare more was left out.
func declared(cfg *config.Config) []string {
	if cfg.Missing.Env {
		return nil
	}
	names := make([]string, len(cfg.Env))
	for i, v := range cfg.Env {
		names[i] = v.Name
	}
	return names
}

func resolveEnv(cfg *config.Config, lookup func(string) (string, bool)) map[string]string {
	env := make(map[string]string, len(cfg.Env))
	for _, v := range cfg.Env {
		if val, ok := lookup(v.Name); ok {
			env[v.Name] = val
		} else if v.Default != nil {
			env[v.Name] = *v.Default
		}
	}
	return env
}

// Start starts the blocks that need it, then every connector, then tells the blocks that
// wait for it that the service serves (Readier). If anything fails, what did start is stopped
// again.
func (s *Service) Start(ctx context.Context) error {
	parts := append([]any{}, s.lifecycle...)
	// A connector serving a session of its own (stdio's pipe) starts last, as it stops first:
	// its first line may call a tool that calls an API flow of the same config, so the other
	// connectors must already listen whatever order the config lists them in.
	for _, session := range []bool{false, true} {
		for _, c := range s.connectors {
			if ownsSession(c.conn) == session {
				parts = append(parts, c.conn)
			}
		}
	}
	if err := s.start(ctx, parts); err != nil {
		return err
	}
	for _, p := range s.lifecycle {
		if r, ok := p.(Readier); ok {
			if err := r.Ready(ctx); err != nil {
				_ = s.Stop(context.Background())
				return err
			}
		}
	}
	memtrim.Soon() // serving now: what the build and the start touched can go back
	return nil
}

// StartBlocks starts the blocks that need it and no connector, for a caller that hands the
// connectors' flows their messages itself: `octo test` serves an http connector's handler on a
// loopback port of its own, so a case never binds the configured port or reads stdin. Stop
// stops them.
func (s *Service) StartBlocks(ctx context.Context) error {
	return s.start(ctx, append([]any{}, s.lifecycle...))
}

// ownsSession reports whether a connector serves a session of its own, as stdio's pipe does
// (it has Done): such a connector starts after the others and stops before them.
func ownsSession(p any) bool {
	_, ok := p.(interface{ Done() <-chan struct{} })
	return ok
}

func (s *Service) start(ctx context.Context, parts []any) error {
	for _, p := range parts {
		if st, ok := p.(Starter); ok {
			if err := st.Start(ctx); err != nil {
				_ = s.Stop(context.Background())
				return err
			}
		}
		s.mu.Lock()
		s.started = append(s.started, p)
		s.mu.Unlock()
	}
	return nil
}

// Stop stops connectors first (they stop accepting and drain in-flight
// requests until ctx ends), then blocks. Safe to call without Start.
func (s *Service) Stop(ctx context.Context) error {
	s.mu.Lock()
	started := s.started
	s.started = nil
	s.mu.Unlock()

	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	stop := func(p any) {
		if st, ok := p.(Stopper); ok {
			if err := st.Stop(ctx); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}
	}
	// A connector serving a session of its own (stdio's pipe, which has Done) stops first and
	// lets its calls finish while the others still serve: a tool may be calling an API flow
	// of the same config over HTTP.
	for _, session := range []bool{true, false} {
		for _, p := range started {
			if _, isConn := p.(Connector); isConn && ownsSession(p) == session {
				wg.Add(1)
				go func() { defer wg.Done(); stop(p) }()
			}
		}
		wg.Wait()
	}
	for i := len(started) - 1; i >= 0; i-- {
		if _, isConn := started[i].(Connector); !isConn {
			stop(started[i])
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("stopping %s: %w", s.Name, errors.Join(errs...))
	}
	return nil
}

// Connector returns a started or built connector by name (nil if none);
// tests and commands use it to learn bound addresses.
// Leave tells every connector that can (Leaver) that the service is about to stop.
func (s *Service) Leave() {
	for _, c := range s.connectors {
		if l, ok := c.conn.(Leaver); ok {
			l.Leave()
		}
	}
}

// Connector returns the service's connector name, nil when there is none.
func (s *Service) Connector(name string) Connector {
	for _, c := range s.connectors {
		if c.name == name {
			return c.conn
		}
	}
	return nil
}

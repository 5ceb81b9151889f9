package jwtvalidate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"
)

// keySet is the signing keys validators check tokens against: a key file read once, or a JWKS
// URL fetched at load and kept fresh in the background. Validators of one JWKS URL with the same
// algorithms and refresh settings can share one (see sharedKey): it is fetched once, and a
// reload's new build finds it fetched.
type keySet struct {
	index  atomic.Pointer[keyIndex]
	remote *remoteKeys // nil for a key file
	cfg    config      // the settings it was loaded for: algorithms, refresh, clock
	log    *slog.Logger

	life      context.Context // done once Close begins; stops refreshes
	stop      context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// loadKeys reads the key file, or fetches the JWKS URL once (so a bad URL fails now, not on the
// first request) and starts refreshing it.
func (c config) loadKeys() (*keySet, error) {
	k := &keySet{cfg: c, log: c.Logger}
	if k.log == nil {
		k.log = slog.New(slog.DiscardHandler)
	}
	k.life, k.stop = context.WithCancel(context.Background())
	if c.JWKSFile != "" {
		ix, err := loadKeyFile(c.JWKSFile, c)
		if err != nil {
			k.stop()
			return nil, fmt.Errorf("jwksFile: %w", err)
		}
		k.index.Store(ix)
		return k, nil
	}
	k.remote = newRemoteKeys(c)
	k.remote.lastFetch = c.now()
	ctx, cancel := context.WithTimeout(k.life, fetchTimeout)
	ix, err := k.remote.load(ctx, c.algs)
	cancel()
	if err != nil {
		_ = k.Close(context.Background())
		return nil, fmt.Errorf("jwksUrl: %w", err)
	}
	k.index.Store(ix)
	k.wg.Add(1)
	go k.refreshLoop()
	return k, nil
}

// sharedKey names what a remote key set depends on, for a runtime.Shared table: validators whose
// keys are equal may share one key set.
func (c config) sharedKey() string {
	algs := slices.Sorted(func(yield func(string) bool) {
		for a := range c.algs {
			if !yield(a) {
				return
			}
		}
	})
	return fmt.Sprintf("jwks:%s algorithms=%s refresh=%s min=%s", c.JWKSURL, strings.Join(algs, ","),
		c.RefreshInterval, c.MinRefreshInterval)
}

// Close stops the background refresh and waits for it; it is safe to call more than once. The
// keys stay usable, never fetched again.
func (k *keySet) Close(context.Context) error {
	k.closeOnce.Do(func() {
		if k.remote != nil {
			k.remote.close()
		}
		k.stop()
		k.wg.Wait() // the refresh loop and a fetch in flight, which stop cancelled
		if k.remote != nil && k.remote.ownClient {
			k.remote.client.CloseIdleConnections()
		}
	})
	return nil
}

const fetchTimeout = 10 * time.Second

// maxRefreshWaiters bounds the requests that wait for a key fetch in flight. A request holds one
// of the connector's in-flight slots while it waits, so without a bound a flood of random kids
// during a slow fetch would take every slot; past it a request is answered at once (503).
const maxRefreshWaiters = 16

// remoteKeys fetches a JWKS over HTTP and decides when fetching again is allowed.
type remoteKeys struct {
	url         string
	client      *http.Client
	ownClient   bool
	minInterval time.Duration
	// waiters holds a token per request waiting for a fetch: at most maxRefreshWaiters.
	waiters chan struct{}

	mu sync.Mutex
	// lastFetch is when the latest fetch began, successful or not.
	lastFetch time.Time
	// flight is the fetch in progress, shared by everyone who needs it; nil when none is.
	flight *flight
	// closed is set by Close: no fetch starts after it.
	closed bool
}

// flight is one fetch; done is closed when it has ended and the keys are stored.
type flight struct {
	done chan struct{}
}

func newRemoteKeys(c config) *remoteKeys {
	r := &remoteKeys{
		url:         c.JWKSURL,
		client:      c.HTTPClient,
		minInterval: c.MinRefreshInterval,
		waiters:     make(chan struct{}, maxRefreshWaiters),
	}
	if r.client == nil {
		// No keep-alive: a fetch every few minutes gains nothing from an idle connection, and
		// none may outlive Close.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DisableKeepAlives = true
		r.client = &http.Client{Timeout: fetchTimeout, Transport: tr}
		r.ownClient = true
	}
	return r
}

// load fetches and indexes the key set; an unusable answer leaves the caller's keys in place.
func (r *remoteKeys) load(ctx context.Context, algs map[string]keyKind) (*keyIndex, error) {
	set, err := r.fetch(ctx)
	if err != nil {
		return nil, err
	}
	return indexKeys(set, algs)
}

func (r *remoteKeys) fetch(ctx context.Context) (jwk.Set, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("jwks endpoint %s answered %s", r.url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", r.url, err)
	}
	if len(body) > maxKeyBytes {
		return nil, fmt.Errorf("%s answered more than %d bytes", r.url, maxKeyBytes)
	}
	set, err := parseSet(body)
	if err != nil {
		return nil, fmt.Errorf("%s is not a JWKS: %w", r.url, err)
	}
	return set, nil
}

// errRefreshBusy says a request found the keys being fetched and every waiting place taken.
var errRefreshBusy = errors.New("the signing keys are being fetched and too many requests wait for them")

// refreshOnMiss is the key lookup's second chance for a kid it does not know: it joins the fetch
// in flight, or starts one when the latest began at least minRefreshInterval ago, and waits for
// it (a burst of unknown kids costs the JWKS host at most one request per window). Only
// maxRefreshWaiters requests wait; the others get errRefreshBusy at once.
func (k *keySet) refreshOnMiss(ctx context.Context) (*keyIndex, error) {
	r := k.remote
	if r == nil {
		return k.index.Load(), nil
	}
	f := k.startOrJoin(r.minInterval)
	if f == nil {
		return k.index.Load(), nil
	}
	select {
	case r.waiters <- struct{}{}:
		defer func() { <-r.waiters }()
	default:
		return nil, errRefreshBusy
	}
	select {
	case <-f.done:
	case <-ctx.Done():
	case <-k.life.Done():
	}
	return k.index.Load(), nil
}

// startOrJoin returns the fetch in flight, starting one when none is and the latest began at
// least gap ago; nil when no fetch is due or the validator is closed. The fetch runs on its own,
// so a caller that gives up (or an attacker cancelling requests) cannot waste the one fetch a
// window allows; Close still ends it.
func (k *keySet) startOrJoin(gap time.Duration) *flight {
	r := k.remote
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.flight != nil {
		return r.flight
	}
	if r.closed || k.cfg.now().Sub(r.lastFetch) < gap {
		return nil
	}
	f := &flight{done: make(chan struct{})}
	r.flight, r.lastFetch = f, k.cfg.now()
	k.wg.Add(1) // under mu and before closed: Close's Wait sees it
	go k.runFetch(f)
	return f
}

func (k *keySet) runFetch(f *flight) {
	defer k.wg.Done()
	r := k.remote
	ctx, cancel := context.WithTimeout(k.life, fetchTimeout)
	ix, err := r.load(ctx, k.cfg.algs)
	cancel()
	switch {
	case err == nil:
		k.index.Store(ix)
	case k.life.Err() == nil:
		k.log.Warn("jwt-validate: jwks refresh failed, keeping the previous keys", "url", r.url, "error", err)
	}
	r.mu.Lock()
	r.flight = nil
	r.mu.Unlock()
	close(f.done)
}

// lastFetchStart is when the latest fetch began.
func (r *remoteKeys) lastFetchStart() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastFetch
}

// close stops fetches from starting; the caller then waits for the one in flight.
func (r *remoteKeys) close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
}

// refreshLoop fetches the keys refreshInterval after the latest fetch, whatever started that
// one, until the key set closes. Timing from the latest fetch keeps both promises exact: keys
// are never older than refreshInterval, and fetches never come closer than minRefreshInterval.
func (k *keySet) refreshLoop() {
	defer k.wg.Done()
	interval := k.cfg.RefreshInterval
	t := time.NewTimer(interval)
	defer t.Stop()
	for {
		select {
		case <-k.life.Done():
			return
		case <-t.C:
		}
		if f := k.startOrJoin(interval); f != nil {
			select {
			case <-f.done:
			case <-k.life.Done():
				return
			}
		}
		t.Reset(k.remote.lastFetchStart().Add(interval).Sub(k.cfg.now()))
	}
}

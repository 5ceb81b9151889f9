package jwtvalidate

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwk"
)

const fetchTimeout = 10 * time.Second

// remoteKeys fetches a JWKS over HTTP and decides when fetching again is allowed.
type remoteKeys struct {
	url         string
	client      *http.Client
	ownClient   bool
	minInterval time.Duration
	// gate holds one token: one fetch at a time, and a waiter can give up when the validator closes.
	gate chan struct{}
	// lastFetch is when the latest fetch began, successful or not; guarded by gate.
	lastFetch time.Time
}

func newRemoteKeys(c config) *remoteKeys {
	r := &remoteKeys{
		url:         c.JWKSURL,
		client:      c.HTTPClient,
		minInterval: c.MinRefreshInterval,
		gate:        make(chan struct{}, 1),
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
	set, err := jwk.Parse(body)
	if err != nil {
		return nil, fmt.Errorf("%s is not a JWKS: %w", r.url, err)
	}
	return set, nil
}

// refresh fetches the key set again unless a fetch began less than gap ago, and returns the
// newest keys and when the latest fetch began. A miss passes minRefreshInterval as gap, so a
// burst of unknown kids costs the JWKS host at most one request per window; concurrent callers
// queue on the gate and then see the fresh set.
func (v *Validator) refresh(ctx context.Context, gap time.Duration) (*keyIndex, time.Time) {
	r := v.remote
	if r == nil || v.life.Err() != nil {
		return v.keys.Load(), time.Time{}
	}
	select {
	case r.gate <- struct{}{}:
	case <-ctx.Done():
		return v.keys.Load(), time.Time{}
	case <-v.life.Done():
		return v.keys.Load(), time.Time{}
	}
	defer func() { <-r.gate }()
	if v.life.Err() != nil || v.cfg.now().Sub(r.lastFetch) < gap {
		return v.keys.Load(), r.lastFetch
	}
	r.lastFetch = v.cfg.now()
	// The fetch outlives a caller that gives up, so an attacker cancelling requests cannot waste
	// the one fetch a window allows; Close still ends it.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	defer cancel()
	defer context.AfterFunc(v.life, cancel)()
	ix, err := r.load(fctx, v.cfg.algs)
	if err != nil {
		if v.life.Err() == nil {
			v.log.Warn("jwt-validate: jwks refresh failed, keeping the previous keys", "url", r.url, "error", err)
		}
		return v.keys.Load(), r.lastFetch
	}
	v.keys.Store(ix)
	return ix, r.lastFetch
}

// refreshLoop fetches the keys refreshInterval after the latest fetch, whatever started that
// one, until the validator closes. Timing from the latest fetch keeps both promises exact: keys
// are never older than refreshInterval, and fetches never come closer than minRefreshInterval.
func (v *Validator) refreshLoop() {
	defer v.wg.Done()
	interval := v.cfg.RefreshInterval
	t := time.NewTimer(interval)
	defer t.Stop()
	for {
		select {
		case <-v.life.Done():
			return
		case <-t.C:
		}
		_, last := v.refresh(v.life, interval)
		if v.life.Err() != nil {
			return
		}
		t.Reset(last.Add(interval).Sub(v.cfg.now()))
	}
}

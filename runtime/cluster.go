package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/octo-run/octo/runtime/config"
)

// Cluster is what the replicas of a service share (service.cluster): key-value buckets whose
// entries expire, and work queues whose items one replica each takes. The runtime knows it only
// as these primitives; a provider (the NATS JetStream one, connectors/nats) registers how they
// are made (RegisterCluster), and blocks build what they share on them (the MCP blocks' tasks).
type Cluster interface {
	// KV opens the bucket name, making it when it does not exist; an entry not written for ttl
	// is dropped.
	KV(ctx context.Context, name string, ttl time.Duration) (ClusterKV, error)
	// Queue opens the work queue name, making it when it does not exist; an item taken and not
	// settled within ackWait (its replica died) is taken again.
	Queue(ctx context.Context, name string, ackWait time.Duration) (ClusterQueue, error)
	// Topic opens the topic name: what a replica publishes there, every replica subscribed to
	// it hears, itself included; nothing is kept for a replica that is not.
	Topic(ctx context.Context, name string) (ClusterTopic, error)
}

// ClusterTopic is a topic of a cluster.
type ClusterTopic interface {
	Publish(ctx context.Context, msg []byte) error
	// Subscribe calls fn with every message published from now on, in order, until stop.
	Subscribe(fn func(msg []byte)) (stop func(), err error)
}

// ClusterKV is a bucket of a cluster. Keys are dot-separated words of letters, digits, - and _;
// a pattern's word * matches any one word, and a last word > any rest.
type ClusterKV interface {
	// Get returns the value of key and its revision; ErrClusterNotFound when there is none.
	Get(ctx context.Context, key string) (value []byte, revision uint64, err error)
	// Create writes key when it does not exist; ErrClusterExists when it does.
	Create(ctx context.Context, key string, value []byte) (revision uint64, err error)
	// Update writes key when its revision is still revision; ErrClusterConflict when another
	// write came first.
	Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error)
	// Delete removes key.
	Delete(ctx context.Context, key string) error
	// Keys lists the keys pattern matches.
	Keys(ctx context.Context, pattern string) ([]string, error)
	// Watch calls fn with the value of every key pattern matches, then with every write (value)
	// and removal (nil) of them in the order they happened, until stop. It returns once the
	// values there were have been told.
	Watch(ctx context.Context, pattern string, fn func(key string, value []byte)) (stop func(), err error)
}

// ClusterQueue is a work queue of a cluster.
type ClusterQueue interface {
	// Put adds an item.
	Put(ctx context.Context, item []byte) error
	// Take has fn take items, at most maxInFlight at once, until stop: an item is kept in
	// progress while fn runs, done when it returns nil, and taken again later when it returns
	// an error. delivery counts the times the item was taken (1 the first time).
	Take(ctx context.Context, maxInFlight int, fn func(ctx context.Context, item []byte, delivery int) error) (stop func(), err error)
}

// The errors of a ClusterKV.
var (
	ErrClusterNotFound = errors.New("no such key")
	ErrClusterExists   = errors.New("the key exists already")
	ErrClusterConflict = errors.New("the key was written by another meanwhile")
	// ErrClusterTooLarge is a value or an item over what the cluster takes in one message.
	ErrClusterTooLarge = errors.New("too large for the cluster")
)

// ClusterSpec registers the cluster provider a binary is built with.
type ClusterSpec struct {
	Type    string
	Summary string
	// Settings are the keys of service.cluster.
	Settings SettingsType
	// Open connects to the cluster settings (a pointer to the Settings type) describe; the
	// connection is shared by every build of the process that names the same cluster, and
	// closed with the last (Close).
	Open func(ctx context.Context, settings any, log Logger) (ClusterConn, error)
	// Blame is the setting a failure to reach the cluster points at (a pointer into settings:
	// its address); nil points at the section.
	Blame func(settings any) any
}

// ClusterConn is an open cluster connection.
type ClusterConn interface {
	Cluster
	Close(ctx context.Context) error
}

// Logger is what a cluster provider logs to: the service's logger.
type Logger interface {
	Info(msg string, args ...any)
	Warn(msg string, args ...any)
}

// RegisterCluster sets the cluster provider; a second is a programming error and panics.
func RegisterCluster(spec ClusterSpec) {
	registry.Lock()
	defer registry.Unlock()
	if registry.cluster != nil || spec.Type == "" || spec.Open == nil {
		panic(fmt.Sprintf("runtime: cluster provider %q registered twice or without a name or Open", spec.Type))
	}
	registry.cluster = &spec
}

// ClusterProvider returns the registered provider, if any.
func ClusterProvider() (ClusterSpec, bool) {
	registry.RLock()
	defer registry.RUnlock()
	if registry.cluster == nil {
		return ClusterSpec{}, false
	}
	return *registry.cluster, true
}

// ClusterRef is a service's cluster, decoded at build and connected on first Acquire: a block
// takes it in Start (Acquire) and lets go in Stop (the release), so that every build of a
// process that names the same cluster shares one connection.
type ClusterRef struct {
	spec     ClusterSpec
	settings any
	key      string
	shared   *Shared
	log      Logger
	scope    string            // Build.Cluster sets it
	pos      *config.Positions // of the settings, for Fail
}

// Acquire connects to the cluster, or takes the connection another build holds.
func (c *ClusterRef) Acquire(ctx context.Context) (Cluster, Release, error) {
	conn, release, err := Acquire(c.shared, c.key, func() (ClusterConn, error) { return c.spec.Open(ctx, c.settings, c.log) })
	if err != nil {
		return nil, nil, c.Fail(err)
	}
	return conn, release, nil
}

// Fail is err, a failure to reach or use the cluster, as a problem of service.cluster: at the
// setting the provider blames, with the variable that set it.
func (c *ClusterRef) Fail(err error) error {
	var ds config.Diags
	if c.pos == nil || errors.As(err, &ds) {
		return err
	}
	var field any
	if c.spec.Blame != nil {
		field = c.spec.Blame(c.settings)
	}
	msg := err.Error()
	if vars := c.pos.Of(field).Vars; len(vars) > 0 {
		msg += " (" + vars[0] + " sets it)"
	}
	return config.Diags{c.pos.Diag(field, "%s", msg)}
}

// Scope names what one block keeps in the cluster, apart from every other block's and
// service's that share it: the service, the flow and the block (its name, else its type), in
// letters, digits, - and _.
func (c *ClusterRef) Scope() string { return c.scope }

// Cluster returns the service's cluster (service.cluster) as the block sees it (Scope), nil
// when it names none.
func (b *Build) Cluster() *ClusterRef {
	if b.bd.cluster == nil {
		return nil
	}
	ref := *b.bd.cluster
	name := b.Name
	if name == "" {
		name = b.Type
	}
	ref.scope = scopeName(b.bd.cfg.Service.Name + "_" + b.Flow + "_" + name)
	return &ref
}

// scopeName is s with what is not a letter, digit, - or _ made -, and a digest of s after it
// when that changed s or s is long, so that two scopes never share a name.
func scopeName(s string) string {
	clean := []byte(s)
	changed := false
	for i, c := range clean {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			clean[i], changed = '-', true
		}
	}
	if !changed && len(clean) <= 64 {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return string(clean[:min(len(clean), 48)]) + "-" + hex.EncodeToString(sum[:4])
}

// buildCluster decodes the service's cluster section, if it has one.
func (bd *builder) buildCluster() {
	node := bd.cfg.Service.Cluster
	if node == nil {
		return
	}
	at := bd.cfg.Service.At.Field("cluster")
	spec, ok := ClusterProvider()
	if !ok {
		bd.report(node, at, "this octo is built without a cluster provider")
		return
	}
	so := newSettingsOf(bd)
	settings, ok := so.decode(spec.Settings.Spec(), node, at, node, nil)
	if !ok || len(bd.diags) > so.first {
		return
	}
	text, _ := json.Marshal(settings)
	sum := sha256.Sum256(text)
	bd.cluster = &ClusterRef{spec: spec, settings: settings, key: "cluster:" + spec.Type + " " + hex.EncodeToString(sum[:8]),
		shared: bd.shared, log: bd.logger, pos: so.pos}
}

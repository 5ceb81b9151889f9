package nats

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/octo-run/octo/runtime"
)

// The cluster provider: service.cluster on NATS JetStream. A bucket is a JetStream key-value
// bucket, a queue a work-queue stream with one durable consumer every replica takes from.
// Their names begin with the prefix, so that services sharing a NATS server keep apart.
func init() {
	runtime.RegisterCluster(runtime.ClusterSpec{
		Type:     "nats",
		Summary:  "replicas share state through NATS JetStream: key-value buckets and work queues",
		Settings: runtime.SettingsTypeOf[ClusterSettings](),
		Open:     openCluster,
		Blame:    func(settings any) any { return &settings.(*ClusterSettings).URL },
	})
}

// ClusterSettings are service.cluster's.
type ClusterSettings struct {
	Connection `yaml:",inline"`
	Prefix     string `yaml:"prefix" default:"octo" doc:"What the buckets and queues of this service begin with: letters, digits, - and _. Services that share a NATS server and must not share state use different ones."`
	Replicas   int    `yaml:"replicas" default:"1" min:"1" max:"5" doc:"How many NATS servers keep each bucket and queue (JetStream replicas): 3 in a NATS cluster of three."`
}

var prefixPattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// natsCluster is an open cluster connection.
type natsCluster struct {
	set ClusterSettings
	nc  *natsgo.Conn
	js  jetstream.JetStream
	log runtime.Logger

	mu     sync.Mutex
	stops  []func() // the watches and takes still running
	closed bool
}

func openCluster(_ context.Context, settings any, log runtime.Logger) (runtime.ClusterConn, error) {
	s := settings.(*ClusterSettings)
	if err := s.check(func(_ any, format string, args ...any) error { return fmt.Errorf(format, args...) }); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if !prefixPattern.MatchString(s.Prefix) {
		return nil, fmt.Errorf("cluster: prefix %q: use letters, digits, - and _", s.Prefix)
	}
	nc, err := s.connect(s.Prefix, log)
	if err != nil {
		return nil, fmt.Errorf("%w: start a NATS server with JetStream there (nats-server -js), or point url at one", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("cluster: %w", err)
	}
	log.Info("joined the cluster", "server", nc.ConnectedUrlRedacted(), "prefix", s.Prefix)
	return &natsCluster{set: *s, nc: nc, js: js, log: log}, nil
}

// noJetStream says what to do when the server has no JetStream.
func (c *natsCluster) noJetStream(err error) error {
	if errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount) {
		return fmt.Errorf("%w: the NATS server at %s runs without JetStream; start it with -js", err, c.nc.ConnectedUrlRedacted())
	}
	return err
}

// Close stops what still watches or takes, and closes the connection.
func (c *natsCluster) Close(context.Context) error {
	c.mu.Lock()
	c.closed = true
	stops := c.stops
	c.stops = nil
	c.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	c.nc.Close()
	return nil
}

// track keeps stop for Close, and returns the stop a caller gets: it runs once.
func (c *natsCluster) track(stop func()) func() {
	var once sync.Once
	s := func() { once.Do(stop) }
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		s()
		return s
	}
	c.stops = append(c.stops, s)
	return s
}

// KV implements runtime.Cluster.
func (c *natsCluster) KV(ctx context.Context, name string, ttl time.Duration) (runtime.ClusterKV, error) {
	kv, err := c.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: c.set.Prefix + "_" + name, TTL: ttl, History: 1,
		Replicas: c.set.Replicas})
	if err != nil {
		return nil, fmt.Errorf("cluster: bucket %s_%s: %w", c.set.Prefix, name, c.noJetStream(err))
	}
	return &natsKV{c: c, kv: kv}, nil
}

type natsKV struct {
	c  *natsCluster
	kv jetstream.KeyValue
}

func (k *natsKV) Get(ctx context.Context, key string) ([]byte, uint64, error) {
	e, err := k.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, runtime.ErrClusterNotFound
	}
	if err != nil {
		return nil, 0, err
	}
	return e.Value(), e.Revision(), nil
}

func (k *natsKV) Create(ctx context.Context, key string, value []byte) (uint64, error) {
	rev, err := k.kv.Create(ctx, key, value)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return 0, runtime.ErrClusterExists
	}
	return rev, sized(err, len(value), k.c.nc)
}

// sized tells a message over the server's largest (max_payload) as runtime.ErrClusterTooLarge.
func sized(err error, n int, nc *natsgo.Conn) error {
	if errors.Is(err, natsgo.ErrMaxPayload) {
		return fmt.Errorf("%w: %d bytes, over the NATS server's max_payload of %d", runtime.ErrClusterTooLarge, n, nc.MaxPayload())
	}
	return err
}

func (k *natsKV) Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error) {
	rev, err := k.kv.Update(ctx, key, value, revision)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
		return 0, runtime.ErrClusterConflict
	}
	return rev, sized(err, len(value), k.c.nc)
}

func (k *natsKV) Delete(ctx context.Context, key string) error {
	err := k.kv.Purge(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil
	}
	return err
}

func (k *natsKV) Keys(ctx context.Context, pattern string) ([]string, error) {
	l, err := k.kv.ListKeysFiltered(ctx, pattern)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer l.Stop()
	var out []string
	for key := range l.Keys() {
		out = append(out, key)
	}
	return out, nil
}

func (k *natsKV) Watch(ctx context.Context, pattern string, fn func(key string, value []byte)) (func(), error) {
	w := &kvWatch{kv: k, pattern: pattern, fn: fn}
	caughtUp, err := w.start(ctx)
	if err != nil {
		return nil, err
	}
	select {
	case <-caughtUp:
	case <-w.done:
		return nil, errors.New("the watch ended before it caught up")
	case <-ctx.Done():
		w.stop()
		return nil, ctx.Err()
	}
	return k.c.track(w.stop), nil
}

// kvWatch is a watch of a bucket.
type kvWatch struct {
	kv      *natsKV
	pattern string
	fn      func(key string, value []byte)
	it      jetstream.MessagesContext
	done    chan struct{}
}

// start watches, telling fn every value there is, then every change; caughtUp closes once the
// values there were are told. The watch is an ordered consumer of the bucket's stream, which
// the client makes again whenever it misses a message or the server lost it.
func (w *kvWatch) start(ctx context.Context) (caughtUp <-chan struct{}, err error) {
	bucket := w.kv.kv.Bucket()
	prefix := "$KV." + bucket + "."
	cons, err := w.kv.c.js.OrderedConsumer(ctx, "KV_"+bucket, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{prefix + w.pattern}, DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy})
	if err != nil {
		return nil, err
	}
	it, err := cons.Messages()
	if err != nil {
		return nil, err
	}
	done, told := make(chan struct{}), make(chan struct{})
	if cons.CachedInfo().NumPending == 0 {
		close(told)
	}
	w.it, w.done = it, done
	go func() {
		defer close(done)
		caught := cons.CachedInfo().NumPending == 0
		for {
			m, err := it.Next()
			if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return
			}
			if err != nil {
				time.Sleep(50 * time.Millisecond) // the consumer is being made again
				continue
			}
			key := strings.TrimPrefix(m.Subject(), prefix)
			switch m.Headers().Get("KV-Operation") {
			case "DEL", "PURGE":
				w.fn(key, nil)
			default:
				w.fn(key, m.Data())
			}
			if meta, err := m.Metadata(); !caught && err == nil && meta.NumPending == 0 {
				caught = true
				close(told)
			}
		}
	}()
	return told, nil
}

func (w *kvWatch) stop() {
	w.it.Stop()
	<-w.done
}

// Queue implements runtime.Cluster: a work-queue stream, and the durable consumer every replica
// takes from.
func (c *natsCluster) Queue(ctx context.Context, name string, ackWait time.Duration) (runtime.ClusterQueue, error) {
	stream := c.set.Prefix + "_queue_" + name
	subject := c.set.Prefix + ".queue." + name
	if _, err := c.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: stream, Subjects: []string{subject},
		Retention: jetstream.WorkQueuePolicy, Replicas: c.set.Replicas}); err != nil {
		return nil, fmt.Errorf("cluster: queue %s: %w", stream, c.noJetStream(err))
	}
	cons, err := c.js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{Durable: stream, AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: ackWait, MaxDeliver: -1})
	if err != nil {
		return nil, fmt.Errorf("cluster: queue %s: %w", stream, err)
	}
	return &natsQueue{c: c, subject: subject, cons: cons, ackWait: ackWait}, nil
}

type natsQueue struct {
	c       *natsCluster
	subject string
	cons    jetstream.Consumer
	ackWait time.Duration
}

func (q *natsQueue) Put(ctx context.Context, item []byte) error {
	_, err := q.c.js.Publish(ctx, q.subject, item)
	return sized(err, len(item), q.c.nc)
}

// Take runs fn on the items, maxInFlight at once, each kept in progress while fn runs. It asks
// for an item only when it has room for one, so that no item waits here unseen while another
// replica is free to take it.
func (q *natsQueue) Take(ctx context.Context, maxInFlight int, fn func(ctx context.Context, item []byte, delivery int) error) (func(), error) {
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	room := make(chan struct{}, maxInFlight)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case room <- struct{}{}:
			case <-run.Done():
				return
			}
			m, err := q.cons.Next(jetstream.FetchContext(run))
			if err != nil {
				<-room
				if run.Err() != nil {
					return
				}
				if !errors.Is(err, natsgo.ErrTimeout) {
					time.Sleep(100 * time.Millisecond) // the server is away; the client reconnects
				}
				continue
			}
			wg.Go(func() {
				defer func() { <-room }()
				q.settle(run, m, fn)
			})
		}
	})
	return q.c.track(func() {
		cancel() // the items being worked go back to the queue (settle)
		wg.Wait()
	}), nil
}

// settle runs fn on one item, keeping it in progress, and acknowledges it or asks for it again.
func (q *natsQueue) settle(run context.Context, m jetstream.Msg, fn func(ctx context.Context, item []byte, delivery int) error) {
	delivery := 1
	if meta, err := m.Metadata(); err == nil {
		delivery = int(meta.NumDelivered)
	}
	ctx, cancel := context.WithCancel(run)
	defer cancel()
	go keepInProgress(ctx, m, q.ackWait)
	if err := fn(ctx, m.Data(), delivery); err != nil {
		if run.Err() == nil {
			q.c.log.Warn("cluster work failed; it is taken again", "queue", strings.TrimPrefix(q.subject, q.c.set.Prefix+".queue."), "err", err)
		}
		_ = m.NakWithDelay(time.Second)
		return
	}
	_ = m.Ack()
}

// Topic implements runtime.Cluster: a core NATS subject.
func (c *natsCluster) Topic(_ context.Context, name string) (runtime.ClusterTopic, error) {
	return &natsTopic{c: c, subject: c.set.Prefix + ".topic." + name}, nil
}

type natsTopic struct {
	c       *natsCluster
	subject string
}

func (t *natsTopic) Publish(_ context.Context, msg []byte) error {
	return t.c.nc.Publish(t.subject, msg)
}

func (t *natsTopic) Subscribe(fn func(msg []byte)) (func(), error) {
	sub, err := t.c.nc.Subscribe(t.subject, func(m *natsgo.Msg) { fn(m.Data) })
	if err != nil {
		return nil, err
	}
	if err := t.c.nc.Flush(); err != nil { // the server has it before the caller counts on it
		_ = sub.Unsubscribe()
		return nil, err
	}
	return t.c.track(func() { _ = sub.Unsubscribe() }), nil
}

var _ runtime.ClusterConn = (*natsCluster)(nil)

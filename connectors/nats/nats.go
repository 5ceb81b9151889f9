// Package nats is the nats connector: a connection to a NATS server (or cluster) that flows take
// messages from, and that the nats-publish block sends through.
//
// A flow's source on it is one of:
//
//   - a core subject, shared in a queue group (every replica of a service subscribes in the
//     same group, and each message goes to one of them); a message with a reply subject is a
//     request, and the flow's answer is the reply (an error is replied with the
//     Nats-Service-Error headers);
//   - a JetStream durable consumer (stream and consumer named): each message is acknowledged
//     once its flow succeeded, asked again after a back-off when the flow failed for a reason
//     a retry can mend (an upstream down, a timeout), and given up (terminated) when it cannot
//     (invalid input); a message being worked on is kept in progress, so a long flow does not
//     see it delivered to another replica, and one whose replica died is delivered again.
//
// At most maxInFlight messages of a source run at once. Its message's body is the NATS message's
// data; its headers are the message's headers, with Nats-Subject added. The connector knows
// nothing of what the messages hold. Errors and logs name the server without credentials.
package nats

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/octo-run/octo/runtime"
)

func init() {
	runtime.RegisterConnector(runtime.ConnectorSpec{
		Type:    "nats",
		Summary: "takes messages from NATS subjects or JetStream consumers, and publishes through nats-publish",
		Doc: "A connection to NATS. A flow's source names a core subject (shared by the replicas of a service in a queue group; " +
			"a request's reply is the flow's answer) or a JetStream stream and durable consumer (acknowledged once the flow " +
			"succeeds, redelivered after a back-off when it failed for a reason a retry can mend, terminated when it cannot). " +
			"The nats-publish block sends through the same connection.",
		Example: "connectors:\n  - { name: bus, type: nats, settings: { url: 'nats://127.0.0.1:4222' } }\n" +
			"flows:\n  - name: orders\n    source: { connector: bus, settings: { stream: ORDERS, consumer: octo-orders } }\n" +
			"    process:\n      - { type: log, settings: { message: 'order {{ body.id }}' } }\n",
		Build:  runtime.ConnectorFunc(build),
		Source: runtime.SettingsTypeOf[SourceSettings](),
	})
}

// Settings are the connection's.
type Settings struct {
	Connection `yaml:",inline"`
	Name       string `yaml:"name" doc:"The name the server shows for this client; default: the service's name."`
}

// Connection are the settings that reach a NATS server, the connector's and the cluster's.
type Connection struct {
	URL         string        `yaml:"url" default:"nats://127.0.0.1:4222" doc:"The NATS server to connect to; several, comma-separated, for a cluster. Credentials in the URL are never logged."`
	Credentials string        `yaml:"credentials" doc:"A .creds file (a user JWT and its NKey seed), as nsc writes it."`
	User        string        `yaml:"user" doc:"A user name, with password."`
	Password    string        `yaml:"password" doc:"The user's password."`
	Token       string        `yaml:"token" doc:"A token, for a server that takes one."`
	Timeout     time.Duration `yaml:"connectTimeout" default:"5s" min:">0" doc:"How long connecting may take before the service fails to start."`
}

// check reports what is wrong with the connection settings, at the setting (report).
func (c *Connection) check(report func(field any, format string, args ...any) error) error {
	for _, u := range strings.Split(c.URL, ",") {
		if p, err := url.Parse(strings.TrimSpace(u)); err != nil || (p.Scheme != "nats" && p.Scheme != "tls" && p.Scheme != "ws" && p.Scheme != "wss") || p.Host == "" {
			return report(&c.URL, "%q is not a NATS URL: write nats://host:4222 (tls://, ws:// and wss:// too)", redact(strings.TrimSpace(u)))
		}
	}
	if c.Credentials != "" && (c.User != "" || c.Token != "") || c.User != "" && c.Token != "" {
		return report(nil, "use one of credentials, user and password, or token")
	}
	if (c.User == "") != (c.Password == "") {
		return report(nil, "user and password go together")
	}
	return nil
}

// connect connects as name, logging disconnections and reconnections to log; the error names
// the server without its credentials.
func (c *Connection) connect(name string, log interface {
	Info(string, ...any)
	Warn(string, ...any)
}) (*natsgo.Conn, error) {
	opts := []natsgo.Option{natsgo.Name(name), natsgo.Timeout(c.Timeout), natsgo.MaxReconnects(-1),
		natsgo.ReconnectWait(time.Second),
		natsgo.DisconnectErrHandler(func(_ *natsgo.Conn, err error) {
			if err != nil {
				log.Warn("disconnected from NATS; reconnecting", "err", err)
			}
		}),
		natsgo.ReconnectHandler(func(nc *natsgo.Conn) { log.Info("reconnected to NATS", "server", nc.ConnectedUrlRedacted()) }),
	}
	switch {
	case c.Credentials != "":
		opts = append(opts, natsgo.UserCredentials(c.Credentials))
	case c.User != "":
		opts = append(opts, natsgo.UserInfo(c.User, c.Password))
	case c.Token != "":
		opts = append(opts, natsgo.Token(c.Token))
	}
	nc, err := natsgo.Connect(c.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to NATS at %s: %w", redact(c.URL), err)
	}
	return nc, nil
}

// SourceSettings are a flow's source on a nats connector.
type SourceSettings struct {
	Subject     string          `yaml:"subject" doc:"A core subject to take messages from (wildcards allowed); with stream, the consumer's filter subject (optional)."`
	Queue       string          `yaml:"queue" doc:"The queue group the replicas share a core subject in; default: the service's name and the flow's. Set broadcast to have every replica take every message."`
	Broadcast   bool            `yaml:"broadcast" doc:"Take every message of a core subject on every replica, without a queue group."`
	Stream      string          `yaml:"stream" doc:"A JetStream stream to consume, through the durable consumer named by consumer (made or updated at start); the stream must exist."`
	Consumer    string          `yaml:"consumer" doc:"The durable consumer's name; default: the service's name and the flow's, with dots turned to dashes."`
	MaxInFlight int             `yaml:"maxInFlight" default:"64" min:"1" max:"100000" doc:"How many messages of this source may run at once; more wait (JetStream keeps them, a core subscription buffers them)."`
	AckWait     time.Duration   `yaml:"ackWait" default:"30s" min:"1s" doc:"JetStream: how long a delivered message may go without news before it is delivered again; a message still being worked on is kept in progress."`
	MaxDeliver  int             `yaml:"maxDeliver" default:"5" min:"-1" doc:"JetStream: how many times a message is delivered before it is given up; -1: without end."`
	Backoff     []time.Duration `yaml:"backoff" doc:"JetStream: how long to wait before a failed message is delivered again, by attempt (the last for the rest); default: 1s, 5s, 30s."`
}

// Connector is a NATS connection and the sources attached to it.
type Connector struct {
	name    string
	set     Settings
	service string
	log     *slog.Logger
	sources []*source

	conn    atomic.Pointer[natsgo.Conn]
	js      atomic.Pointer[jetstream.JetStream]
	stopped context.CancelFunc
	wg      sync.WaitGroup
}

func build(b *runtime.ConnectorBuild, s *Settings) (runtime.Connector, error) {
	if err := s.check(b.Errorf); err != nil {
		return nil, err
	}
	service := b.ServiceName()
	if service == "" {
		service = "octo"
	}
	if s.Name == "" {
		s.Name = service
	}
	return &Connector{name: b.Name, set: *s, service: service, log: b.Logger()}, nil
}

// Attach takes a flow's source: a subject, or a stream and its consumer.
func (c *Connector) Attach(src *runtime.SourceBuild, flow *runtime.Flow) error {
	s := src.Settings().(*SourceSettings)
	switch {
	case s.Stream == "" && s.Subject == "":
		return src.Errorf(nil, `missing required key "subject" (or "stream", a JetStream stream)`)
	case s.Stream != "" && (s.Queue != "" || s.Broadcast):
		return src.Errorf(nil, "queue and broadcast are for core subjects; a stream's consumer shares its messages among the replicas already")
	case s.Queue != "" && s.Broadcast:
		return src.Errorf(&s.Broadcast, "broadcast takes every message on every replica: it has no queue group")
	}
	base := strings.NewReplacer(".", "-", " ", "-", "*", "-", ">", "-").Replace(c.service + "-" + src.Flow)
	if s.Stream != "" && s.Consumer == "" {
		s.Consumer = base
	}
	if s.Consumer != "" && strings.ContainsAny(s.Consumer, ". *>/\\\t") {
		return src.Errorf(&s.Consumer, "consumer %q: a durable name holds no spaces, dots, wildcards or slashes", s.Consumer)
	}
	if s.Stream == "" && s.Queue == "" && !s.Broadcast {
		s.Queue = base
	}
	if len(s.Backoff) == 0 {
		s.Backoff = []time.Duration{time.Second, 5 * time.Second, 30 * time.Second}
	}
	c.sources = append(c.sources, &source{c: c, flow: flow, set: *s, log: c.log.With("flow", src.Flow)})
	return nil
}

// Start connects, then takes each source's messages.
func (c *Connector) Start(ctx context.Context) error {
	nc, err := c.set.connect(c.set.Name, c.log)
	if err != nil {
		return fmt.Errorf("connector %s: %w", c.name, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return fmt.Errorf("connector %s: %w", c.name, err)
	}
	c.conn.Store(nc)
	c.js.Store(&js)
	run, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.stopped = stop
	for _, s := range c.sources {
		if err := s.start(ctx, run, nc, js); err != nil {
			stop()
			c.wg.Wait()
			nc.Close()
			c.conn.Store(nil)
			return err
		}
	}
	c.log.Info("connected to NATS", "server", nc.ConnectedUrlRedacted(), "sources", len(c.sources))
	return nil
}

// Stop stops taking messages, lets those in flight finish while ctx lasts (a JetStream message
// that cannot is asked again at once, for another replica), and closes the connection.
func (c *Connector) Stop(ctx context.Context) error {
	nc := c.conn.Load()
	if nc == nil {
		return nil
	}
	for _, s := range c.sources {
		s.stopTaking()
	}
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		c.stopped() // the flows still running end, and their JetStream messages are asked again
		<-done
	}
	c.stopped()
	nc.Close()
	return nil
}

// Conn is the connection the connector holds once started, for a block that publishes through
// it (nats-publish).
func (c *Connector) Conn() (*natsgo.Conn, jetstream.JetStream, error) {
	nc, js := c.conn.Load(), c.js.Load()
	if nc == nil || js == nil {
		return nil, nil, fmt.Errorf("connector %s is not connected", c.name)
	}
	return nc, *js, nil
}

// Name is the connector's name in the config.
func (c *Connector) Name() string { return c.name }

// redact is a list of NATS URLs without their credentials.
func redact(urls string) string {
	parts := strings.Split(urls, ",")
	for i, u := range parts {
		if p, err := url.Parse(strings.TrimSpace(u)); err == nil && p.User != nil {
			p.User = url.User("redacted")
			parts[i] = p.String()
		}
	}
	return strings.Join(parts, ",")
}

var _ runtime.Connector = (*Connector)(nil)

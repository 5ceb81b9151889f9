package nats

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/octo-run/octo/runtime"
)

// source is one flow's subscription: a core subject or a JetStream consumer, and the
// maxInFlight workers that run its messages through the flow.
type source struct {
	c    *Connector
	flow *runtime.Flow
	set  SourceSettings
	log  *slog.Logger

	sub  *natsgo.Subscription      // core
	core chan *natsgo.Msg          // core: what the subscription received, for the workers
	quit chan struct{}             // core: closed when no more messages are taken
	iter jetstream.MessagesContext // JetStream
	js   chan jetstream.Msg        // JetStream: handed from the reader to the workers
	done chan struct{}             // JetStream: closed once the reader returned
}

func (s *source) start(startCtx, run context.Context, nc *natsgo.Conn, js jetstream.JetStream) error {
	if s.set.Stream != "" {
		return s.startJetStream(startCtx, run, js)
	}
	return s.startCore(run, nc)
}

// startCore subscribes to the subject, in the queue group unless broadcast.
func (s *source) startCore(run context.Context, nc *natsgo.Conn) error {
	s.core, s.quit = make(chan *natsgo.Msg, s.set.MaxInFlight), make(chan struct{})
	var err error
	if s.set.Broadcast {
		s.sub, err = nc.ChanSubscribe(s.set.Subject, s.core)
	} else {
		s.sub, err = nc.ChanQueueSubscribe(s.set.Subject, s.set.Queue, s.core)
	}
	if err != nil {
		return fmt.Errorf("connector %s: subscribing to %q: %w", s.c.name, s.set.Subject, err)
	}
	for range s.set.MaxInFlight {
		s.c.wg.Go(func() {
			for {
				select {
				case m := <-s.core:
					s.deliverCore(run, m)
				case <-s.quit:
					for { // what was received before the subscription ended is still answered
						select {
						case m := <-s.core:
							s.deliverCore(run, m)
						default:
							return
						}
					}
				}
			}
		})
	}
	return nil
}

// startJetStream makes or updates the durable consumer and takes its messages.
func (s *source) startJetStream(startCtx, run context.Context, js jetstream.JetStream) error {
	cons, err := js.CreateOrUpdateConsumer(startCtx, s.set.Stream, jetstream.ConsumerConfig{
		Durable: s.set.Consumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: s.set.AckWait,
		MaxDeliver: s.set.MaxDeliver, FilterSubject: s.set.Subject,
	})
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("connector %s: stream %q does not exist on NATS: create it first (nats stream add %s --subjects '...')",
			s.c.name, s.set.Stream, s.set.Stream)
	}
	if err != nil {
		return fmt.Errorf("connector %s: consumer %q of stream %q: %w", s.c.name, s.set.Consumer, s.set.Stream, err)
	}
	s.iter, err = cons.Messages(jetstream.PullMaxMessages(s.set.MaxInFlight))
	if err != nil {
		return fmt.Errorf("connector %s: consuming stream %q: %w", s.c.name, s.set.Stream, err)
	}
	s.js, s.done = make(chan jetstream.Msg), make(chan struct{})
	s.c.wg.Go(func() {
		defer close(s.js)
		defer close(s.done)
		for {
			m, err := s.iter.Next()
			if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return
			}
			if err != nil {
				s.log.Warn("taking a message from the stream", "stream", s.set.Stream, "err", err)
				select {
				case <-time.After(100 * time.Millisecond):
				case <-run.Done():
					return
				}
				continue
			}
			s.js <- m
		}
	})
	for range s.set.MaxInFlight {
		s.c.wg.Go(func() {
			for m := range s.js {
				s.deliverJetStream(run, m)
			}
		})
	}
	return nil
}

// stopTaking ends the subscription; what was received already still runs.
func (s *source) stopTaking() {
	if s.sub != nil {
		_ = s.sub.Unsubscribe()
		close(s.quit)
	}
	if s.iter != nil {
		s.iter.Drain() // what the iterator holds is handed out, then Next says it is closed
	}
}

// message is a NATS message as a flow's: its data, and its headers with Nats-Subject.
func message(data []byte, h natsgo.Header, subject string) *runtime.Message {
	msg := runtime.NewMessage(data)
	attrs := make(runtime.Attributes, len(h)+1)
	for k, v := range h {
		attrs[k] = v
	}
	attrs["Nats-Subject"] = []string{subject}
	msg.Attrs = attrs
	return msg
}

// deliverCore runs a core message through the flow; a request gets the flow's answer.
func (s *source) deliverCore(run context.Context, m *natsgo.Msg) {
	_ = s.flow.Deliver(run, message(m.Data, m.Header, m.Subject), &coreDelivery{s: s, m: m})
}

type coreDelivery struct {
	s *source
	m *natsgo.Msg
}

func (d *coreDelivery) Ack(_ context.Context, answer *runtime.Message) error {
	if d.m.Reply == "" {
		return nil
	}
	data, err := answerBytes(answer)
	if err != nil {
		return d.Nack(context.Background(), err)
	}
	if err := d.m.Respond(data); err != nil {
		d.s.log.Warn("replying", "subject", d.m.Subject, "err", err)
	}
	return nil
}

// Nack replies to a request with the error (Nats-Service-Error, as NATS services do), and logs
// a failure that is the server's fault; core NATS has no redelivery.
func (d *coreDelivery) Nack(ctx context.Context, err error) error {
	e := runtime.ErrorOf(err)
	if e.Kind.ServerFault() {
		d.s.log.ErrorContext(ctx, "flow failed", "subject", d.m.Subject, "err", err)
	}
	if d.m.Reply == "" {
		return nil
	}
	reply := natsgo.NewMsg(d.m.Reply)
	reply.Header.Set("Nats-Service-Error", e.Msg)
	reply.Header.Set("Nats-Service-Error-Code", e.Kind.String())
	reply.Data, _ = json.Marshal(map[string]string{"error": e.Msg})
	if err := d.m.RespondMsg(reply); err != nil {
		d.s.log.Warn("replying", "subject", d.m.Subject, "err", err)
	}
	return nil
}

// deliverJetStream runs a stream's message through the flow, keeping it in progress meanwhile.
func (s *source) deliverJetStream(run context.Context, m jetstream.Msg) {
	ctx, cancel := context.WithCancel(run)
	defer cancel()
	go keepInProgress(ctx, m, s.set.AckWait)
	_ = s.flow.Deliver(ctx, message(m.Data(), m.Headers(), m.Subject()), &jsDelivery{s: s, m: m, run: run})
}

// keepInProgress tells the server three times per ackWait that m is still being worked on,
// until ctx ends, so that it is not delivered to another replica meanwhile.
func keepInProgress(ctx context.Context, m jetstream.Msg, ackWait time.Duration) {
	t := time.NewTicker(ackWait / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = m.InProgress()
		}
	}
}

type jsDelivery struct {
	s   *source
	m   jetstream.Msg
	run context.Context
}

func (d *jsDelivery) Ack(context.Context, *runtime.Message) error {
	if err := d.m.Ack(); err != nil {
		d.s.log.Warn("acknowledging", "subject", d.m.Subject(), "err", err)
	}
	return nil
}

// Nack asks for the message again after a back-off when the error is one a retry can mend
// (the server's fault), gives it up when it cannot (the message's), and hands it on at once
// when the connector is stopping.
func (d *jsDelivery) Nack(ctx context.Context, err error) error {
	e := runtime.ErrorOf(err)
	delivered := uint64(1)
	if meta, merr := d.m.Metadata(); merr == nil {
		delivered = meta.NumDelivered
	}
	subject := d.m.Subject()
	switch {
	case d.run.Err() != nil || e.Kind == runtime.KindCancelled:
		_ = d.m.Nak()
	case e.Kind.ServerFault():
		wait := d.s.set.Backoff[min(int(delivered)-1, len(d.s.set.Backoff)-1)]
		_ = d.m.NakWithDelay(wait)
		if max := d.s.set.MaxDeliver; max > 0 && delivered >= uint64(max) {
			d.s.log.ErrorContext(ctx, "message given up: it failed on every delivery", "subject", subject, "deliveries", delivered, "err", err)
		} else {
			d.s.log.WarnContext(ctx, "message failed; it is delivered again", "subject", subject, "delivery", delivered, "after", wait.String(), "err", err)
		}
	default:
		_ = d.m.TermWithReason(e.Msg)
		d.s.log.WarnContext(ctx, "message given up: delivering it again cannot mend it", "subject", subject, "kind", e.Kind.String(), "err", err)
	}
	return nil
}

// answerBytes is what a reply carries: raw bytes as they are, a string as its text, any other
// value as JSON.
func answerBytes(m *runtime.Message) ([]byte, error) {
	if m.Stream() != nil {
		return nil, runtime.Errorf(runtime.KindInternal, "a stream cannot be a NATS reply")
	}
	if m.IsRaw() {
		return m.Raw(), nil
	}
	v, err := m.Body()
	if err != nil {
		return nil, err
	}
	if s, ok := v.(string); ok {
		return []byte(s), nil
	}
	return json.Marshal(v)
}

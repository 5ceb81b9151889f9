package runtime

import "context"

// Delivery settles one message a source received, once its flow has run: Ack with the flow's
// answer when the flow succeeded, Nack with its error when it failed (ErrorOf says how to
// answer it). Exactly one of them is called, once. The http connector's Ack writes the
// response and its Nack the error's status; the stdio connector's Ack writes the answer's
// lines and its Nack logs. A message-system connector acknowledges the message to its broker
// in Ack, only then, and in Nack asks for redelivery when the error is the server's fault
// (ErrorKind.ServerFault) or gives the message up when retrying cannot help.
type Delivery interface {
	Ack(ctx context.Context, answer *Message) error
	Nack(ctx context.Context, err error) error
}

// Deliver runs msg through the flow and settles it with d: the source side of the connector
// API. It returns what Ack or Nack returned.
func (f *Flow) Deliver(ctx context.Context, msg *Message, d Delivery) error {
	out, err := f.Run(ctx, msg)
	if see, ok := ctx.Value(watchKey{}).(func(*Message, error)); ok {
		see(out, err)
	}
	if err != nil {
		return d.Nack(ctx, err)
	}
	return d.Ack(ctx, out)
}

type watchKey struct{}

// WatchDeliveries returns a context under which Deliver shows see each flow's outcome (the
// answer, or the error) before settling it: `octo test` checks the vars of an answer, which no
// transport carries, this way. see must not keep the message past its call.
func WatchDeliveries(ctx context.Context, see func(answer *Message, err error)) context.Context {
	return context.WithValue(ctx, watchKey{}, see)
}

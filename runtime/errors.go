package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrorKind is what went wrong, in words every transport can answer in: the http connector
// maps each kind to a status, the stdio connector logs it beside the line, and a
// message-system connector decides from it whether redelivery can help (ServerFault).
type ErrorKind uint8

// The kinds of error. The zero kind is KindInternal, so an Error without one is answered as
// the server's fault, without details.
const (
	KindInternal     ErrorKind = iota // the server failed; nothing about it is the client's to see
	KindInvalid                       // the input is malformed or breaks a rule
	KindUnauthorized                  // no credentials, or unusable ones
	KindForbidden                     // the credentials do not allow this
	KindNotFound                      // nothing is there
	KindConflict                      // the request clashes with the current state
	KindTooLarge                      // the input is over a limit
	KindUnavailable                   // not now: stopping, starting, or overloaded
	KindTimeout                       // what the request waited on took too long
	KindCancelled                     // the request was cancelled before it finished
	KindUpstream                      // a service this one called failed or answered badly
)

var kindNames = [...]string{
	KindInternal:     "internal",
	KindInvalid:      "invalid",
	KindUnauthorized: "unauthorized",
	KindForbidden:    "forbidden",
	KindNotFound:     "not found",
	KindConflict:     "conflict",
	KindTooLarge:     "too large",
	KindUnavailable:  "unavailable",
	KindTimeout:      "timeout",
	KindCancelled:    "cancelled",
	KindUpstream:     "upstream",
}

// String names the kind, as logs show it.
func (k ErrorKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// KindNamed returns the kind whose String is name, and whether there is one.
func KindNamed(name string) (ErrorKind, bool) {
	for k, n := range kindNames {
		if n == name {
			return ErrorKind(k), true
		}
	}
	return KindInternal, false
}

// KindsNamed returns the kinds of names, in order, leaving out a name that is no kind's: a
// setting listing kinds checks them with an enum first. Nil for no names.
func KindsNamed(names []string) []ErrorKind {
	var out []ErrorKind
	for _, name := range names {
		if k, ok := KindNamed(name); ok {
			out = append(out, k)
		}
	}
	return out
}

// ServerFault reports whether an error of this kind is the server's side failing rather than
// the request being wrong: connectors log such errors, and a message system may redeliver
// the message, which can then succeed.
func (k ErrorKind) ServerFault() bool {
	switch k {
	case KindInternal, KindUnavailable, KindTimeout, KindCancelled, KindUpstream:
		return true
	}
	return false
}

// Error is a failure a connector answers in its own words: its Kind picks the answer (an
// HTTP status, say) and Msg, which is safe to show to the client, is its text. The optional
// details are neutral too; the http connector writes them as headers.
type Error struct {
	Kind ErrorKind
	Msg  string
	// RetryAfter, when positive, says when trying again may succeed (HTTP Retry-After).
	RetryAfter time.Duration
	// Challenge says how to authenticate, for KindUnauthorized (HTTP WWW-Authenticate).
	Challenge string
	// Err is the cause, for logs and errors.Is; it is never shown to the client.
	Err error
}

// Error returns the client-safe message.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of kind whose client-safe message is formatted from format and
// args.
func Errorf(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

var (
	errInternal  = &Error{Kind: KindInternal, Msg: "internal error"}
	errCancelled = &Error{Kind: KindCancelled, Msg: "request cancelled"}
)

// ErrorOf says how a connector should answer an error from a flow: the *Error anywhere in
// err's chain; a context cancelled or past its deadline as KindCancelled, "request
// cancelled"; anything else as KindInternal, "internal error", whose details must not reach
// the client (log err itself). The result is shared: read it, do not change it.
func ErrorOf(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return errCancelled
	}
	return errInternal
}

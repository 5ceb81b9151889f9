package httprequest

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// StatusError is an answer the block counts as a failure: a status outside 2xx and
// acceptStatus, after any retries. Its Message is safe to show a flow's caller (an MCP client,
// the model); Error adds the method and the redacted URL, for logs.
type StatusError struct {
	// Status is the backend's status code.
	Status int
	// Excerpt is the start of the answer's body: at most ExcerptBytes of it, control and
	// invisible characters escaped, every secret the request carried masked.
	Excerpt string
	// Request is the method and the URL without user, password or query values.
	Request string
	// Attempts is how many requests were sent.
	Attempts int
}

// ExcerptBytes is the most of an answer's body a StatusError quotes.
const ExcerptBytes = 200

// Message says what the backend answered, without naming it.
func (e *StatusError) Message() string {
	msg := "the backend answered " + statusText(e.Status)
	if e.Excerpt != "" {
		msg += ": " + e.Excerpt
	}
	return msg
}

func (e *StatusError) Error() string { return e.Request + ": " + e.Message() + attempts(e.Attempts) }

// RequestError is a call that got no answer the block could use: a timeout, a connection or
// TLS failure, an answer larger than maxResponseBytes or not the JSON it says it is.
type RequestError struct {
	// Reason is what went wrong, safe to show a flow's caller.
	Reason string
	// Timeout is set when the call ran out of its time.
	Timeout bool
	// Request is the method and the URL without user, password or query values.
	Request string
	// Attempts is how many requests were sent.
	Attempts int
	// Err is the cause, for logs: it may name addresses.
	Err error
	// retry is set when trying again may help: a connection that failed or broke.
	retry bool
}

func (e *RequestError) Error() string {
	msg := e.Request + ": " + e.Reason
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg + attempts(e.Attempts)
}

func (e *RequestError) Unwrap() error { return e.Err }

// Message says what went wrong, without naming the backend.
func (e *RequestError) Message() string { return e.Reason }

func attempts(n int) string {
	if n > 1 {
		return " (after " + strconv.Itoa(n) + " attempts)"
	}
	return ""
}

func statusText(code int) string {
	if text := http.StatusText(code); text != "" {
		return strconv.Itoa(code) + " " + text
	}
	return strconv.Itoa(code)
}

// errTimeout is the cause of a call's context when its timeout ends it.
var errTimeout = errors.New("http-request timeout")

// excerpt is the start of body as safe text: cut at ExcerptBytes on a character boundary (…
// marks the cut), each secret masked, control, invisible and invalid bytes escaped so a log
// line or a message cannot be broken or disguised by what a backend sends.
func excerpt(body []byte, secrets []string) string {
	text := string(body)
	for _, s := range secrets {
		text = strings.ReplaceAll(text, s, "***")
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if i+size > ExcerptBytes {
			b.WriteString("…")
			break
		}
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, text[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// redactURL is u as logs and errors may show it: no user or password, no fragment, each query
// value masked (its name kept).
func redactURL(u *url.URL) string {
	r := *u
	r.User, r.Fragment, r.RawFragment = nil, "", ""
	if r.RawQuery != "" {
		parts := strings.Split(r.RawQuery, "&")
		for i, p := range parts {
			if name, _, ok := strings.Cut(p, "="); ok {
				parts[i] = name + "=***"
			}
		}
		r.RawQuery = strings.Join(parts, "&")
	}
	return r.String()
}

package workspace

// The readable traffic log of `octo serve`.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/octo-run/octo/runtime/printable"
)

// TrafficLogger writes the log as JSON lines or as readable lines: one short line per message
// of the servers' traffic (octo serve, octo app).
func TrafficLogger(w io.Writer, level slog.Level, asJSON bool) *slog.Logger {
	if asJSON {
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
	}
	return slog.New(&lineHandler{w: w, level: level, mu: new(sync.Mutex)})
}

// lineHandler writes one short line per record: traffic as
// "time server in|out summary [session]", anything else as
// "time LEVEL message key=value…". At debug level a message's JSON follows
// on its own indented line.
type lineHandler struct {
	w     io.Writer
	level slog.Level
	mu    *sync.Mutex
	attrs []slog.Attr
}

// Enabled implements slog.Handler.
func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

// WithAttrs implements slog.Handler.
func (h *lineHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

// WithGroup implements slog.Handler; groups are flattened.
func (h *lineHandler) WithGroup(string) slog.Handler { return h }

// hiddenAttrs are context the line's shape already says, or runtime
// plumbing a reader of the traffic does not need.
var hiddenAttrs = map[string]bool{"flow": true, "block": true, "name": true, "kind": true, "transport": true}

// Handle implements slog.Handler. Every text of the line is escaped (printable.Escape): server,
// tool and client names come from files and clients, and the line goes to a terminal.
func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	attrs, order, body := h.collect(r)
	r.Message = printable.Escape(r.Message)
	var b strings.Builder
	b.WriteString(r.Time.Format("15:04:05.000"))
	b.WriteByte(' ')
	if dir, ok := attrs["direction"]; ok || attrs["kind"] == "session-opened" || attrs["kind"] == "session-closed" {
		fmt.Fprintf(&b, "%s  %-3s %s", attrs["server"], dir, r.Message)
		if sess := attrs["session"]; sess != "" {
			fmt.Fprintf(&b, "  [%s %s]", shortID(sess), attrs["transport"])
		} else if t := attrs["transport"]; t == "http" { // an HTTP mock's: plain HTTP has no sessions
			b.WriteString("  [http]")
		} else if t != "" && dir != "" { // a 2026-07-28 request: no session
			version := attrs["version"]
			if version == "" {
				version = "stateless"
			}
			fmt.Fprintf(&b, "  [%s %s]", version, t)
		}
		if reason := attrs["reason"]; reason != "" {
			fmt.Fprintf(&b, " (%s)", reason)
		}
	} else {
		fmt.Fprintf(&b, "%-5s %s", r.Level.String(), r.Message)
		for _, k := range order {
			if !hiddenAttrs[k] {
				fmt.Fprintf(&b, " %s=%s", k, quoteIfSpaced(attrs[k]))
			}
		}
	}
	b.WriteByte('\n')
	if body != "" && h.level <= slog.LevelDebug {
		b.WriteString("    ")
		b.WriteString(body)
		b.WriteByte('\n')
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

// collect flattens the handler's and the record's attributes to text, in
// order, keeping a message's JSON apart. The JSON is copied only when it is
// printed (debug level): a message may be tens of megabytes.
func (h *lineHandler) collect(r slog.Record) (attrs map[string]string, order []string, body string) {
	attrs = map[string]string{}
	add := func(a slog.Attr) bool {
		if a.Key == "message" {
			if h.level <= slog.LevelDebug {
				body = printable.Escape(valueText(a.Value))
			}
			return true
		}
		s := printable.Escape(valueText(a.Value))
		if _, seen := attrs[a.Key]; !seen {
			order = append(order, a.Key)
		}
		attrs[a.Key] = s
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	return attrs, order, body
}

// valueText is an attribute's value as text, JSON as it is.
func valueText(v slog.Value) string {
	v = v.Resolve()
	if raw, ok := v.Any().(json.RawMessage); ok {
		return string(raw)
	}
	return v.String()
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func quoteIfSpaced(s string) string {
	if strings.ContainsAny(s, " \t\"") {
		b, _ := json.Marshal(s)
		return string(b)
	}
	return s
}

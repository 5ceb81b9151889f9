package workspace

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
)

func TestTheReadableLogIsOneShortLinePerRecord(t *testing.T) {
	cases := []struct {
		name  string
		level slog.Level
		log   func(*slog.Logger)
		want  string
	}{
		{"a request names server, direction, summary and session", slog.LevelInfo, func(l *slog.Logger) {
			l.Info("tools/call get_weather", "server", "Weather mock", "session", "ABCDEFGHIJ", "transport", "streamable-http",
				"kind", "request", "direction", "in", "message", json.RawMessage(`{"jsonrpc":"2.0"}`))
		}, "Weather mock  in  tools/call get_weather  [ABCDEFGH streamable-http]\n"},
		{"a request with no session names its revision", slog.LevelInfo, func(l *slog.Logger) {
			l.Info("tools/list", "server", "S", "session", "", "transport", "streamable-http", "kind", "request", "direction", "in",
				"version", "2026-07-28")
		}, "S  in  tools/list  [2026-07-28 streamable-http]\n"},
		{"a closed session says why", slog.LevelInfo, func(l *slog.Logger) {
			l.Info("session closed", "server", "S", "session", "X1", "transport", "stdio", "kind", "session-closed", "reason", "eof")
		}, "S      session closed  [X1 stdio] (eof)\n"},
		{"other records show level, message and attributes", slog.LevelInfo, func(l *slog.Logger) {
			l.With("flow", "mcp").Error("server not started", "server", "Bad one", "file", "servers/b.yaml")
		}, `ERROR server not started server="Bad one" file=servers/b.yaml` + "\n"},
		{"debug adds the full JSON under the summary", slog.LevelDebug, func(l *slog.Logger) {
			l.Info("ping", "server", "S", "direction", "in", "message", json.RawMessage(`{"jsonrpc":"2.0","id":1}`))
		}, "S  in  ping\n    {\"jsonrpc\":\"2.0\",\"id\":1}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			c.log(TrafficLogger(&b, c.level, false))
			got := b.String()
			if len(got) < 13 || got[12:13] != " " || got[13:] != c.want {
				t.Fatalf("got  %q\nwant %q after the time", got, c.want)
			}
		})
	}
}

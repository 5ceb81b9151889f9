package runtimetest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// Metrics reads the Prometheus text format as a scraper does: each series, as the format
// writes it (name{labels sorted by name}), to its value.
func Metrics(text string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return nil, fmt.Errorf("not a sample: %q", line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("not a sample: %q", line)
		}
		out[line[:i]] = v
	}
	return out, nil
}

// Scrape asks h (a /metrics handler) for the metrics and reads them with Metrics.
func Scrape(t testing.TB, h http.Handler) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	got, err := Metrics(rec.Body.String())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

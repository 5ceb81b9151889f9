package http_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test must leave no goroutine behind: listeners, streams and
// shutdown all end cleanly.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

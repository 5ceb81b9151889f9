// Package all imports the standard set of connectors so they register.
package all

import (
	_ "github.com/octo-run/octo/connectors/agent"
	_ "github.com/octo-run/octo/connectors/http"
	_ "github.com/octo-run/octo/connectors/nats"
	_ "github.com/octo-run/octo/connectors/stdio"
)

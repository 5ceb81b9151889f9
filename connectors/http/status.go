package http

import (
	"net/http"
	"strconv"
	"time"

	"github.com/octo-run/octo/runtime"
)

// statuses answer each kind of runtime.Error; docs/guides/config.md has the table.
var statuses = [...]int{
	runtime.KindInternal:     http.StatusInternalServerError,
	runtime.KindInvalid:      http.StatusBadRequest,
	runtime.KindUnauthorized: http.StatusUnauthorized,
	runtime.KindForbidden:    http.StatusForbidden,
	runtime.KindNotFound:     http.StatusNotFound,
	runtime.KindConflict:     http.StatusConflict,
	runtime.KindTooLarge:     http.StatusRequestEntityTooLarge,
	runtime.KindUnavailable:  http.StatusServiceUnavailable,
	runtime.KindTimeout:      http.StatusGatewayTimeout,
	runtime.KindCancelled:    http.StatusServiceUnavailable,
	runtime.KindUpstream:     http.StatusBadGateway,
}

// statusOf is the status that answers an error of kind k.
func statusOf(k runtime.ErrorKind) int {
	if int(k) < len(statuses) {
		return statuses[k]
	}
	return http.StatusInternalServerError
}

// writeErrorOf answers e: the status of its kind, its details as headers and its message as
// the JSON body.
func writeErrorOf(w http.ResponseWriter, e *runtime.Error) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(int64((e.RetryAfter+time.Second-1)/time.Second), 10))
	}
	if e.Challenge != "" {
		w.Header().Set("WWW-Authenticate", e.Challenge)
	}
	writeError(w, statusOf(e.Kind), e.Msg)
}

package httprequest

import (
	"net/http"

	"github.com/octo-run/octo/runtime"
)

// The one place this block meets the runtime's error statuses: a flow that fails in it answers
// its caller as a gateway would, 502 for a backend that failed and 504 for one that did not
// answer in time, with the error's Message (which names neither the backend nor what the
// request carried) as the text. The router shows that text to the model; the log gets Error.

// As lets errors.As find a *runtime.StatusError in a StatusError.
func (e *StatusError) As(target any) bool {
	return asRuntimeStatus(target, http.StatusBadGateway, e.Message())
}

// As lets errors.As find a *runtime.StatusError in a RequestError.
func (e *RequestError) As(target any) bool {
	status := http.StatusBadGateway
	if e.Timeout {
		status = http.StatusGatewayTimeout
	}
	return asRuntimeStatus(target, status, e.Message())
}

func asRuntimeStatus(target any, status int, msg string) bool {
	t, ok := target.(**runtime.StatusError)
	if ok {
		*t = &runtime.StatusError{Status: status, Msg: msg}
	}
	return ok
}

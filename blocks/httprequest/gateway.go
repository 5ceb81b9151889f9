package httprequest

import (
	"github.com/octo-run/octo/runtime"
)

// The one place this block meets the runtime's error kinds: a flow that fails in it answers
// its caller as a gateway would, KindUpstream (HTTP 502) for a backend that failed and
// KindTimeout (504) for one that did not answer in time, with the error's Message (which names
// neither the backend nor what the request carried) as the text. The router shows that text
// to the model; the log gets Error.

// As lets errors.As find a *runtime.Error in a StatusError.
func (e *StatusError) As(target any) bool {
	return asRuntimeError(target, runtime.KindUpstream, e.Message(), e)
}

// As lets errors.As find a *runtime.Error in a RequestError.
func (e *RequestError) As(target any) bool {
	kind := runtime.KindUpstream
	if e.Timeout {
		kind = runtime.KindTimeout
	}
	return asRuntimeError(target, kind, e.Message(), e)
}

func asRuntimeError(target any, kind runtime.ErrorKind, msg string, cause error) bool {
	t, ok := target.(**runtime.Error)
	if ok {
		*t = &runtime.Error{Kind: kind, Msg: msg, Err: cause}
	}
	return ok
}

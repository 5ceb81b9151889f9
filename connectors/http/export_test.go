package http

// SetBytesInFlight gives the process a budget of max bytes in flight until restore is called.
func SetBytesInFlight(max int64) (restore func()) {
	old := inFlight
	inFlight = newByteBudget(max)
	return func() { inFlight = old }
}

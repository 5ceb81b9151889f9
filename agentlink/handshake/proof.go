package handshake

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"strconv"
	"time"

	"github.com/octo-run/octo/agentlink/appdata"
)

// Version names this handshake in the bridge's first line.
const Version = "agent/1"

// Limits of the exchange.
const (
	MaxLine    = 4 << 10         // the longest line either side reads, without its newline
	Timeout    = 5 * time.Second // the whole exchange, from the connection's first byte
	NonceBytes = 32              // the random bytes of each side's nonce
)

// Errors a handshake fails with, wrapped with what went wrong.
var (
	// ErrAuth: the other side does not know the token, or is not the app agent.json names.
	ErrAuth = errors.New("authentication failed")
	// ErrProtocol: a line that is not what the handshake expects at that point.
	ErrProtocol = errors.New("not an octo agent handshake")
	// ErrBusy: the app is there but takes no more connections now (as many handshakes or
	// sessions as it allows are open); trying again later may work, starting another app won't.
	ErrBusy = errors.New("octo refused the connection")
)

// BusyError is how a bridge fails when the app refused it as busy: errors.Is(err, ErrBusy),
// with the app's reason.
type BusyError struct{ Reason string }

func (e *BusyError) Error() string        { return ErrBusy.Error() + ": " + e.Reason }
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// busyPrefix starts the error text of a busy refusal, which tells it from the others.
const busyPrefix = "busy: "

// The two directions' labels: a proof made for one never passes for the other.
const (
	roleApp    = "app"
	roleBridge = "bridge"
)

// Proof returns role's proof, base64url: HMAC-SHA256 under key over
// "octo agent/1 ROLE\nPORT\nINSTANCE\nNC\nNS", the nonces as their text. role is "app" or
// "bridge". It is exported for tests that pin the format.
func proofOf(key []byte, role string, port int, instance, nc, ns string) string {
	return appdata.Encoding.EncodeToString(mac(key, role, port, instance, nc, ns))
}

func mac(key []byte, role string, port int, instance, nc, ns string) []byte {
	m := hmac.New(sha256.New, key)
	b := make([]byte, 0, 128)
	b = append(b, "octo "+Version+" "...)
	b = append(b, role...)
	b = append(b, '\n')
	b = strconv.AppendInt(b, int64(port), 10)
	b = append(append(b, '\n'), instance...)
	b = append(append(b, '\n'), nc...)
	b = append(append(b, '\n'), ns...)
	m.Write(b)
	return m.Sum(nil)
}

// verify reports, in constant time, whether proof (base64url) is role's proof.
func verify(proof string, key []byte, role string, port int, instance, nc, ns string) bool {
	got, err := appdata.Encoding.DecodeString(proof)
	if err != nil || len(got) != sha256.Size {
		return false
	}
	return hmac.Equal(got, mac(key, role, port, instance, nc, ns))
}

// newNonce returns NonceBytes fresh random bytes as base64url text.
func newNonce() (string, error) {
	var b [NonceBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return appdata.Encoding.EncodeToString(b[:]), nil
}

// checkNonce reports whether text is a nonce: NonceBytes in strict base64url.
func checkNonce(text string) bool {
	b, err := appdata.Encoding.DecodeString(text)
	return err == nil && len(b) == NonceBytes
}

package handshake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
)

// independentProof computes a proof with crypto/hmac and the format as the package doc writes
// it, without the package's code, so the tests check the code against the document.
func independentProof(key []byte, role string, port int, instance, nc, ns string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("octo agent/1 " + role + "\n" + strconv.Itoa(port) + "\n" + instance + "\n" + nc + "\n" + ns))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func itoa(n int) string { return strconv.Itoa(n) }

package handshake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"testing"
)

// The known-answer vector: a fixed token, nonces, port and instance, and the exact proofs.
// The expected proofs were computed outside Go (Python's hmac) and are checked again here with
// crypto/hmac over the message written out by hand, so any change to the format fails.
const (
	kaToken    = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8" // bytes 0x00…0x1f
	kaNc       = "QEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFlaW1xdXl8" // bytes 0x40…0x5f
	kaNs       = "gIGCg4SFhoeIiYqLjI2Oj5CRkpOUlZaXmJmam5ydnp8" // bytes 0x80…0x9f
	kaPort     = 49152
	kaInstance = "00112233445566778899aabbccddeeff"
	kaApp      = "TXNRYea6rDsDcOe3S3Ktx2qNXdZWi5cCBEDFloQhV5Q"
	kaBridge   = "EmwPwNKvW2c0dQq7HpGbvJK1ee_q85uP52GcMoOKOi8"
)

func kaKey(t testing.TB) []byte {
	key, err := base64.RawURLEncoding.DecodeString(kaToken)
	if err != nil || len(key) != 32 {
		t.Fatalf("the vector's token: %v", err)
	}
	for i, b := range key {
		if b != byte(i) {
			t.Fatalf("the vector's token byte %d is %#x", i, b)
		}
	}
	return key
}

func TestProofsMatchTheKnownAnswers(t *testing.T) {
	key := kaKey(t)
	for _, tc := range []struct{ role, message, want string }{
		{roleApp, "octo agent/1 app\n49152\n" + kaInstance + "\n" + kaNc + "\n" + kaNs, kaApp},
		{roleBridge, "octo agent/1 bridge\n49152\n" + kaInstance + "\n" + kaNc + "\n" + kaNs, kaBridge},
	} {
		t.Run("the "+tc.role+"'s proof", func(t *testing.T) {
			m := hmac.New(sha256.New, key)
			m.Write([]byte(tc.message))
			if by := base64.RawURLEncoding.EncodeToString(m.Sum(nil)); by != tc.want {
				t.Fatalf("crypto/hmac over the written-out message gives %s, the vector says %s", by, tc.want)
			}
			if got := proofOf(key, tc.role, kaPort, kaInstance, kaNc, kaNs); got != tc.want {
				t.Fatalf("Proof = %s, want %s", got, tc.want)
			}
			if !verify(tc.want, key, tc.role, kaPort, kaInstance, kaNc, kaNs) {
				t.Fatal("verify refuses the known answer")
			}
		})
	}
}

// Each field the proof binds changes it: a proof for one value of any field is no proof for
// another.
func TestEveryBoundFieldChangesTheProof(t *testing.T) {
	key := kaKey(t)
	other := append([]byte(nil), key...)
	other[31] ^= 1
	for name, got := range map[string]string{
		"another key":        proofOf(other, roleApp, kaPort, kaInstance, kaNc, kaNs),
		"the other role":     proofOf(key, roleBridge, kaPort, kaInstance, kaNc, kaNs),
		"another port":       proofOf(key, roleApp, kaPort+1, kaInstance, kaNc, kaNs),
		"another instance":   proofOf(key, roleApp, kaPort, "00112233445566778899aabbccddeefe", kaNc, kaNs),
		"the nonces swapped": proofOf(key, roleApp, kaPort, kaInstance, kaNs, kaNc),
	} {
		if got == kaApp {
			t.Errorf("%s gives the same proof", name)
		}
		if verify(got, key, roleApp, kaPort, kaInstance, kaNc, kaNs) {
			t.Errorf("%s: verify accepts it as the app's proof", name)
		}
	}
}

func TestVerifyRefusesWhatIsNotAProof(t *testing.T) {
	key := kaKey(t)
	for name, proof := range map[string]string{
		"empty":              "",
		"padded":             kaApp + "=",
		"standard base64":    "TXNRYea6rDsDcOe3S3Ktx2qNXdZWi5cCBEDFloQhV5Q+",
		"truncated":          kaApp[:42],
		"one character more": kaApp + "A",
		"the last bit":       kaApp[:42] + "R", // the same bytes but for bits strict decoding refuses
	} {
		if verify(proof, key, roleApp, kaPort, kaInstance, kaNc, kaNs) {
			t.Errorf("%s: accepted", name)
		}
	}
}

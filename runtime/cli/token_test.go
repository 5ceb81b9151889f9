package cli_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/octo-run/octo/blocks/jwtvalidate"
)

const (
	devPrivate = "../../blocks/jwtvalidate/testdata/es256-private.jwk"
	devPublic  = "../../blocks/jwtvalidate/testdata/es256-public.jwks"
	devAud     = "http://localhost:8080/mcp"
)

func TestTokenPrintsATokenTheValidatorAccepts(t *testing.T) {
	code, out, errOut := runCLI("token", "--key", devPrivate, "--aud", devAud, "--scope", "weather.read profile",
		"--sub", "alice", "--iss", "https://auth.example.com", "--ttl", "5m")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	v, err := jwtvalidate.New(jwtvalidate.Settings{JWKSFile: devPublic, Audience: devAud, Issuer: "https://auth.example.com",
		RequiredScopes: []string{"weather.read"}, ResourceMetadataURL: "http://localhost:8080/.well-known/oauth-protected-resource/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	claims, f := v.Validate(context.Background(), "Bearer "+strings.TrimSpace(out))
	if f != nil {
		t.Fatalf("the minted token is refused: %s", f.Reason)
	}
	if claims["sub"] != "alice" || claims["scope"] != "weather.read profile" {
		t.Fatalf("claims = %v", claims)
	}
	if life := time.Duration(claims["exp"].(float64)-claims["iat"].(float64)) * time.Second; life != 5*time.Minute {
		t.Fatalf("lifetime = %s, want 5m", life)
	}
}

func TestTokenRefusesWhatCannotMakeAUsableToken(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no key is a usage error", []string{"--aud", devAud}, 2, "--key is required"},
		{"no audience is a usage error", []string{"--key", devPrivate}, 2, "--aud is required"},
		{"a zero ttl is a usage error", []string{"--key", devPrivate, "--aud", devAud, "--ttl", "0s"}, 2, "--ttl must be positive"},
		{"a public key cannot sign", []string{"--key", devPublic, "--aud", devAud}, 1, "holds a public key; signing needs the private key"},
		{"an audience with a fragment is refused", []string{"--key", devPrivate, "--aud", devAud + "#x"}, 1, "audience: must not have a fragment"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(append([]string{"token"}, c.args...)...)
			if code != c.code || out != "" || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, c.code, c.want)
			}
		})
	}
}

func TestTokenHelpSaysItIsForDevelopmentOnly(t *testing.T) {
	for _, args := range [][]string{{"token", "--help"}, {"help", "token"}, {"help"}} {
		code, out, _ := runCLI(args...)
		if code != 0 || !strings.Contains(out, "token") || !strings.Contains(out, "DEVELOPMENT ONLY") {
			t.Fatalf("octo %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
}

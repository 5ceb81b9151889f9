package appdata

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// InfoFile is the name of the file, in the data folder, that tells agents where the app is.
const InfoFile = "agent.json"

// Sizes of the secrets in agent.json.
const (
	TokenBytes    = 32 // the token's random bytes
	InstanceBytes = 16 // the instance id's random bytes
	maxInfoBytes  = 64 << 10
)

// Encoding is how agent.json writes the token and the handshake writes nonces and proofs:
// base64url without padding, strict, so one value has one text.
var Encoding = base64.RawURLEncoding.Strict()

// ErrNoApp is returned by ReadInfo when there is no agent.json: no app is running (or one
// stopped without leaving it).
var ErrNoApp = errors.New("octo is not running: no " + InfoFile)

// Info is what agent.json holds: where the running app listens for agents, and the secret the
// app and a bridge prove to each other they know.
type Info struct {
	Port     int    `json:"port"`     // the app's port on 127.0.0.1
	Token    string `json:"token"`    // 32 random bytes, base64url: the handshake's key
	PID      int    `json:"pid"`      // the app's process, for people and for stale-file checks
	Instance string `json:"instance"` // 16 random bytes, hex: tells one run of the app from the next
}

// NewInfo returns the Info of an app now listening on port: a fresh token and instance id, and
// this process's id.
func NewInfo(port int) (Info, error) {
	var token [TokenBytes]byte
	var inst [InstanceBytes]byte
	if _, err := rand.Read(token[:]); err != nil {
		return Info{}, err
	}
	if _, err := rand.Read(inst[:]); err != nil {
		return Info{}, err
	}
	i := Info{Port: port, Token: Encoding.EncodeToString(token[:]), PID: os.Getpid(), Instance: hex.EncodeToString(inst[:])}
	return i, i.Check()
}

// Key returns the token's bytes, the handshake's HMAC key.
func (i Info) Key() ([]byte, error) {
	key, err := Encoding.DecodeString(i.Token)
	if err != nil || len(key) != TokenBytes {
		return nil, fmt.Errorf("token is not %d bytes in base64url", TokenBytes)
	}
	return key, nil
}

// Check reports what makes i unusable: a port out of range, a token that is not 32 bytes in
// base64url, an instance id that is not 32 hex digits.
func (i Info) Check() error {
	if i.Port < 1 || i.Port > 65535 {
		return fmt.Errorf("port %d is out of range", i.Port)
	}
	if _, err := i.Key(); err != nil {
		return err
	}
	if b, err := hex.DecodeString(i.Instance); err != nil || len(b) != InstanceBytes {
		return fmt.Errorf("instance is not %d hex digits", 2*InstanceBytes)
	}
	return nil
}

// WriteInfo writes i as dir/agent.json, readable by the user only, replacing the file at once.
// It refuses a symbolic link (or anything but a regular file) at that path.
func WriteInfo(dir string, i Info) error {
	if err := i.Check(); err != nil {
		return fmt.Errorf("writing %s: %w", InfoFile, err)
	}
	data, err := json.MarshalIndent(i, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(dir, InfoFile, append(data, '\n'))
}

// ReadInfo reads dir/agent.json: ErrNoApp when there is none; an ErrUnsafe error when it is a
// symbolic link, not a regular file, or readable or writable by the group or others; an error
// when it does not hold a usable Info.
func ReadInfo(dir string) (Info, error) {
	path := filepath.Join(dir, InfoFile)
	data, err := readChecked(path, 0o077, maxInfoBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, ErrNoApp
	}
	if err != nil {
		return Info{}, err
	}
	var i Info
	if err := json.Unmarshal(data, &i); err != nil {
		return Info{}, fmt.Errorf("%s: %w", path, err)
	}
	if err := i.Check(); err != nil {
		return Info{}, fmt.Errorf("%s: %w", path, err)
	}
	return i, nil
}

// RemoveInfo removes dir/agent.json if it still names instance: an app that stops removes its
// own file, never one a newer app wrote meanwhile. A missing or unreadable file is left alone.
func RemoveInfo(dir, instance string) error {
	i, err := ReadInfo(dir)
	if err != nil || i.Instance != instance {
		return nil
	}
	if err := os.Remove(filepath.Join(dir, InfoFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

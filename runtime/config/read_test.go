package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestFilesAreReadWithinTheCap(t *testing.T) {
	sized := func(size int64) string {
		path := filepath.Join(t.TempDir(), "f.yaml")
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		return path
	}
	t.Run("a file of exactly the cap is read", func(t *testing.T) {
		if data, err := ReadFile(sized(MaxFileBytes)); err != nil || len(data) != MaxFileBytes {
			t.Fatalf("read %d bytes, %v", len(data), err)
		}
	})
	t.Run("a file one byte past the cap is refused", func(t *testing.T) {
		if _, err := ReadFile(sized(MaxFileBytes + 1)); !errors.Is(err, ErrTooLarge) || err.Error() != "larger than 16 MiB" {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("an endless device is refused unread", func(t *testing.T) {
		if _, err := os.Stat("/dev/zero"); err != nil {
			t.Skip("no /dev/zero")
		}
		var nr *NotRegularError
		if _, err := ReadFile("/dev/zero"); !errors.As(err, &nr) || err.Error() != "a device, not a regular file" {
			t.Fatalf("got %v", err)
		}
	})
}

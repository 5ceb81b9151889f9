package appdata

import (
	"bufio"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Goroutines taking the lock hold it one at a time.
func TestLockStartLetsOneHolderAtATime(t *testing.T) {
	dir := t.TempDir()
	var holders, most atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := LockStart(context.Background(), dir)
			if err != nil {
				t.Error(err)
				return
			}
			n := holders.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(5 * time.Millisecond)
			holders.Add(-1)
			if err := l.Unlock(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Fatalf("%d goroutines held the lock at once", most.Load())
	}
}

func TestLockStartWaitsUntilItsContextEnds(t *testing.T) {
	dir := t.TempDir()
	l, err := LockStart(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := LockStart(ctx, dir); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("LockStart while held: %v, want the context's deadline", err)
	}
	l.Unlock()
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l2, err := LockStart(ctx, dir)
	if err != nil {
		t.Fatalf("LockStart after Unlock: %v", err)
	}
	l2.Unlock()
}

// Another process holding the lock makes LockStart wait; its death lets go.
func TestLockStartWaitsForAnotherProcess(t *testing.T) {
	if os.Getenv("APPDATA_LOCK_HOLDER") != "" {
		holdLockForParent()
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockStartWaitsForAnotherProcess$")
	cmd.Env = append(os.Environ(), "APPDATA_LOCK_HOLDER="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("the other process said %q, %v", line, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	if _, err := LockStart(ctx, dir); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("LockStart while another process holds it: %v", err)
	}
	cmd.Process.Kill() // dies holding the lock: the system lets go of it
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := LockStart(ctx, dir)
	if err != nil {
		t.Fatalf("LockStart after the holder died: %v", err)
	}
	l.Unlock()
}

// holdLockForParent runs in the child process: it takes the lock, says so, and holds it until
// its standard input closes or it is killed.
func holdLockForParent() {
	dir := os.Getenv("APPDATA_LOCK_HOLDER")
	if _, err := LockStart(context.Background(), dir); err != nil {
		os.Stdout.WriteString("failed: " + strings.ReplaceAll(err.Error(), "\n", " ") + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("held\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
	os.Exit(0)
}

func TestLockAppLetsOneAppServeAFolder(t *testing.T) {
	dir := t.TempDir()
	first, err := LockApp(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockApp(dir); !errors.Is(err, ErrAppRunning) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("a second LockApp: %v, want ErrAppRunning naming the folder", err)
	}
	first.Unlock()
	again, err := LockApp(dir)
	if err != nil {
		t.Fatalf("LockApp after Unlock: %v", err)
	}
	again.Unlock()
}

// A symbolic link planted at a lock's name is refused, and its target is not created: a lock
// taken by root would otherwise create (or truncate) whatever file the link names.
func TestALockRefusesASymbolicLinkAtItsName(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "created-by-the-lock")
	if err := os.Symlink(target, filepath.Join(dir, LockFile)); err != nil {
		t.Fatal(err)
	}
	_, err := LockStart(context.Background(), dir)
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "a symbolic link") {
		t.Fatalf("LockStart = %v, want it refused as a symbolic link", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the link's target was created: %v", err)
	}
}

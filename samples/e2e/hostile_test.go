package e2e

// Shared tools of the hostile-client suite (hostile_*_test.go): each test
// plays one attack against the built binary over loopback, bounded in count
// and time, and checks the exact answer and that the process's memory stays
// under a stated bound.

import (
	"bufio"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// memKB reads one "Vm..." line (kB) of /proc/pid/status: VmRSS is the
// resident set now, VmHWM its peak since the process started.
func memKB(t testing.TB, pid int, field string) int {
	t.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("memory checks need /proc (Linux): %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				t.Fatalf("parsing %s %q: %v", field, rest, err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// assertPeakRSSUnder fails when octo's resident memory ever went above
// limitMB since it started.
func assertPeakRSSUnder(t testing.TB, p *proc, limitMB int) {
	t.Helper()
	if peak := memKB(t, p.cmd.Process.Pid, "VmHWM"); peak > limitMB<<10 {
		t.Errorf("octo's peak resident memory was %d MB; want under %d MB", peak>>10, limitMB)
	} else {
		t.Logf("octo's peak resident memory: %d MB (bound %d MB)", peak>>10, limitMB)
	}
}

// dialFrom opens a TCP connection to addr from the loopback address src
// (any 127.x.y.z works on Linux), so a test can play a client on its own
// address beside well-behaved clients on 127.0.0.1.
func dialFrom(t testing.TB, src, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dialing %s from %s: %v", addr, src, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

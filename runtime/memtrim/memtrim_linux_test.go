package memtrim

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// written is in the data segment, which a hand-back must leave alone: a value set at run time
// reading back as the file's would be memory lost.
var written = []int{1, 2, 3}

func status(t *testing.T, key string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", key)
	return 0
}

func TestReleaseUnmapsTheExecutablesReadOnlyPages(t *testing.T) {
	written[1] = 42
	before := status(t, "RssFile")
	rep, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	after := status(t, "RssFile")
	if rep.Regions == 0 || rep.Mapped < 1<<20 {
		t.Fatalf("handed back %d bytes in %d regions; want the test binary's code (RssFile was %d)", rep.Mapped, rep.Regions, before)
	}
	// The test touches code again as it goes on, and each page it touches maps its
	// neighbours: the drop is less than Mapped, but a drop it is.
	if after >= before-256<<10 {
		t.Fatalf("RssFile %d before, %d after handing back %d bytes", before, after, rep.Mapped)
	}
	if written[1] != 42 {
		t.Fatalf("a value written at run time reads %d after the hand-back", written[1])
	}
	// The code runs on from the page cache.
	if got := strings.Repeat("ab", 3); got != "ababab" {
		t.Fatal(got)
	}
}

func TestReadSmaps(t *testing.T) {
	in := `00400000-011ce000 r-xp 00000000 fe:00 9980689                            /srv/octo (deleted)
Size:              14136 kB
Rss:               12536 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me dw sd
0210f000-021a9000 rw-p 01d0f000 fe:00 9980689                            /srv/octo
Rss:                 484 kB
Anonymous:           120 kB
7ffecf87a000-7ffecf89b000 rw-p 00000000 00:00 0                          [stack]
Rss:                  16 kB
`
	got, err := readSmaps(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []region{
		{start: 0x400000, end: 0x11ce000, perms: "r-xp", dev: "fe:00", inode: 9980689, rss: 12536 << 10},
		{start: 0x210f000, end: 0x21a9000, perms: "rw-p", dev: "fe:00", inode: 9980689, rss: 484 << 10, anon: 120 << 10},
		{start: 0x7ffecf87a000, end: 0x7ffecf89b000, perms: "rw-p", dev: "00:00", inode: 0, rss: 16 << 10},
	}
	if len(got) != len(want) {
		t.Fatalf("%d regions, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("region %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := readSmaps(strings.NewReader("garbage\n")); err == nil {
		t.Fatal("a line that is neither a header nor a field was read")
	}
}

func TestDeviceNumbers(t *testing.T) {
	// makedev as glibc packs a device number, the inverse of major and minor.
	makedev := func(ma, mi uint64) uint64 { return ma&0xfff<<8 | ma&^0xfff<<32 | mi&0xff | mi&^0xff<<12 }
	for _, c := range [][2]uint64{{0xfe, 0}, {8, 3}, {0x1103, 0x12345}} {
		dev := makedev(c[0], c[1])
		if major(dev) != c[0] || minor(dev) != c[1] {
			t.Errorf("%x:%x packed as %#x read back as %x:%x", c[0], c[1], dev, major(dev), minor(dev))
		}
	}
	if major(0xfe00) != 0xfe || minor(0xfe00) != 0 {
		t.Fatalf("fe:00 read as %x:%x", major(0xfe00), minor(0xfe00))
	}
}

func TestIdleWatchHandsBackWhenIdleAndGrown(t *testing.T) {
	const ms = time.Millisecond
	w := idleWatch{limit: 3 * ms, base: 1000}
	// What the process has used at each window's end, and whether a hand-back is due then.
	steps := []struct {
		cpu    time.Duration
		faults int64
		due    bool
	}{
		{1 * ms, 1000, false},    // idle, as it was after its last hand-back
		{2 * ms, 1010, false},    // idle, a few pages mapped by its timers
		{500 * ms, 9000, false},  // a load
		{900 * ms, 9500, false},  // still loaded
		{901 * ms, 9500, true},   // idle after it grew: hand back
		{902 * ms, 9500, true},   // still grown (a hand-back moves base; see release)
		{2000 * ms, 9600, false}, // busy
		{2001 * ms, 20000, true}, // idle
		{2001 * ms, 20000, true}, // and so on until release moves base
	}
	for i, s := range steps {
		if got := w.tick(use{s.cpu, s.faults}); got != s.due {
			t.Fatalf("window %d (CPU %v, %d faults): due %v, want %v", i, s.cpu, s.faults, got, s.due)
		}
	}
}

func TestUsageCountsFaults(t *testing.T) {
	before, ok := usage()
	if !ok {
		t.Fatal("getrusage failed")
	}
	b := make([]byte, 8<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	after, _ := usage()
	if after.faults-before.faults < 1000 || after.cpu <= before.cpu {
		t.Fatalf("8 MB touched: %d faults, CPU %v → %v", after.faults-before.faults, before.cpu, after.cpu)
	}
}

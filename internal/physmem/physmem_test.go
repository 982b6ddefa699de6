package physmem

import (
	"os"
	"path/filepath"
	"testing"
)

// write creates the file rel under dir with the given content.
func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFilesTotal: MemTotal (16 GiB = 16,777,216 kB here) unless a control
// group's limit is lower; the lowest limit on a v2 group's path counts,
// "max" is none; v1's huge "no limit" number is above MemTotal and so
// ignored; without /proc/meminfo, Fallback and ok false.
func TestFilesTotal(t *testing.T) {
	const gib = int64(1) << 30
	const meminfo = "MemTotal:       16777216 kB\nMemFree:         1000 kB\n"
	for _, c := range []struct {
		name  string
		files map[string]string
		want  int64
		ok    bool
	}{
		{"no cgroup file", map[string]string{"meminfo": meminfo}, 16 * gib, true},
		{"v2 at the root, max", map[string]string{"meminfo": meminfo, "cgroup": "0::/\n", "sys/memory.max": "max\n"}, 16 * gib, true},
		{"v2 container limit", map[string]string{"meminfo": meminfo, "cgroup": "0::/\n", "sys/memory.max": "2147483648\n"}, 2 * gib, true},
		{"v2 nested, lowest on the path", map[string]string{"meminfo": meminfo, "cgroup": "0::/a/b\n",
			"sys/memory.max": "max\n", "sys/a/memory.max": "4294967296\n", "sys/a/b/memory.max": "max\n"}, 4 * gib, true},
		{"v2 limit above MemTotal", map[string]string{"meminfo": meminfo, "cgroup": "0::/\n", "sys/memory.max": "68719476736\n"}, 16 * gib, true},
		{"v1 no limit", map[string]string{"meminfo": meminfo, "cgroup": "4:memory:/x\n1:cpu:/\n",
			"sys/memory/memory.limit_in_bytes": "9223372036854771712\n"}, 16 * gib, true},
		{"v1 limit of the group", map[string]string{"meminfo": meminfo, "cgroup": "5:cpuacct,memory:/x\n",
			"sys/memory/x/memory.limit_in_bytes": "1073741824\n"}, gib, true},
		{"no meminfo", map[string]string{"cgroup": "0::/\n", "sys/memory.max": "1073741824\n"}, Fallback, false},
		{"meminfo without MemTotal", map[string]string{"meminfo": "MemFree: 10 kB\n"}, Fallback, false},
	} {
		dir := t.TempDir()
		for rel, content := range c.files {
			write(t, dir, rel, content)
		}
		f := Files{Meminfo: filepath.Join(dir, "meminfo"), Cgroup: filepath.Join(dir, "cgroup"), Root: filepath.Join(dir, "sys")}
		got, ok := f.Total()
		if got != c.want || ok != c.ok {
			t.Errorf("%s: Total = %d, %v; want %d, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// TestTotalSystem: on this machine Total is positive and at most
// MemTotal, read once (the same on a second call).
func TestTotalSystem(t *testing.T) {
	b, ok := Total()
	if b <= 0 {
		t.Fatalf("Total = %d", b)
	}
	if mt, found := memTotal(System.Meminfo); found != ok || (ok && b > mt) {
		t.Errorf("Total = %d, %v; MemTotal %d, %v", b, ok, mt, found)
	}
	if b2, ok2 := Total(); b2 != b || ok2 != ok {
		t.Errorf("second call %d, %v; first %d, %v", b2, ok2, b, ok)
	}
}

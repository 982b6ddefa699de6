// Package physmem reads how much memory this process may use: the
// machine's physical memory, lowered to the memory limit of the control
// group (container) the process runs in. The default memory caps of the
// command line (experiments.DefaultMemoryLimit) and the room a Go Falkon
// fit without a MemoryLimit keeps K_nM in (model.Falkon) both start from
// it, so that a fit in a 2 GiB container on a 256 GiB host plans for
// 2 GiB.
package physmem

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// DefaultShare is the share of Total that caps a fit's planned peak when
// the caller sets no cap: three quarters, leaving a quarter for the
// operating system, the page cache, other processes and what the Go
// runtime holds beyond the planned live bytes.
const DefaultShare = 0.75

// Fallback is the memory assumed where none can be read (no /proc/meminfo:
// not Linux): 8 GiB.
const Fallback = 8 << 30

// Files are where Total reads from; tests point them elsewhere.
type Files struct {
	// Meminfo is /proc/meminfo (MemTotal).
	Meminfo string
	// Cgroup is /proc/self/cgroup (the process's control groups).
	Cgroup string
	// Root is /sys/fs/cgroup, where the groups' limits are.
	Root string
}

// System are the files of the running system.
var System = Files{Meminfo: "/proc/meminfo", Cgroup: "/proc/self/cgroup", Root: "/sys/fs/cgroup"}

// Total returns the memory this process may use, in bytes: MemTotal of
// /proc/meminfo, or the memory limit of the process's control group when
// that is lower (cgroup v2 memory.max, v1 memory.limit_in_bytes). Where
// /proc/meminfo cannot be read it returns Fallback with ok false. It is
// read once per process.
var Total = sync.OnceValues(func() (int64, bool) { return System.Total() })

// Total reads the memory this process may use from the files f names (see
// the package function Total).
func (f Files) Total() (bytes int64, ok bool) {
	total, ok := memTotal(f.Meminfo)
	if !ok {
		return Fallback, false
	}
	if lim, found := f.cgroupLimit(); found && lim < total {
		return lim, true
	}
	return total, true
}

// memTotal is MemTotal of a /proc/meminfo file.
func memTotal(path string) (int64, bool) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		rest, found := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !found {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil || kb <= 0 {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

// cgroupLimit is the lowest memory limit on the path of the process's
// control group: cgroup v2's memory.max ("max": none) from the group up
// to the root, or cgroup v1's memory.limit_in_bytes of its memory group
// (a huge number: none). Inside a container the group's path is usually
// "/" and the files at the root are the container's own.
func (f Files) cgroupLimit() (int64, bool) {
	data, err := os.ReadFile(f.Cgroup)
	if err != nil {
		return 0, false
	}
	var best int64
	found := false
	take := func(file string) {
		b, err := os.ReadFile(file)
		if err != nil {
			return
		}
		v, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
		if err != nil || v <= 0 {
			return // "max", or unreadable: no limit here
		}
		if !found || v < best {
			best, found = v, true
		}
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "": // v2
			// The group's path is slash-separated whatever the OS.
			for dir := path.Clean("/" + parts[2]); ; dir = path.Dir(dir) {
				take(filepath.Join(f.Root, filepath.FromSlash(dir), "memory.max"))
				if dir == "/" {
					break
				}
			}
		case hasController(parts[1], "memory"): // v1
			take(filepath.Join(f.Root, "memory", filepath.FromSlash(path.Clean("/"+parts[2])), "memory.limit_in_bytes"))
			take(filepath.Join(f.Root, "memory", "memory.limit_in_bytes"))
		}
	}
	return best, found
}

// hasController reports whether a v1 line's controller list names c.
func hasController(list, c string) bool {
	for name := range strings.SplitSeq(list, ",") {
		if name == c {
			return true
		}
	}
	return false
}

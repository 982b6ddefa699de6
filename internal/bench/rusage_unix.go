//go:build unix

package bench

import (
	"os"
	"runtime"
	"syscall"
)

// selfMaxRSS returns this process's peak resident set in bytes, ok false
// when getrusage fails.
func selfMaxRSS() (int64, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return maxRSSBytes(&ru), true
}

// childMaxRSS returns the peak resident set of an exited child in bytes.
func childMaxRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return maxRSSBytes(ru), true
}

// maxRSSBytes converts ru_maxrss, in bytes on Darwin and in KiB on the
// other Unix systems, to bytes.
func maxRSSBytes(ru *syscall.Rusage) int64 {
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024 // int32 on 386
}

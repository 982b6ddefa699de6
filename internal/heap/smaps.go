package heap

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Mapping returns the value of the field key (for example "VmFlags" or
// "AnonHugePages") of the memory mapping of this process that holds addr,
// as /proc/self/smaps lists it, without the key and surrounding spaces
// ("rd wr mr mw me ac hg", "2048 kB"). Where there is no such file (not
// Linux) or no mapping holds addr, it returns an error: the tests that
// look at page sizes skip then.
func Mapping(addr uintptr, key string) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		// A mapping's header line starts "lo-hi perms ...", in hex.
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(strings.Fields(line)[0], "-") {
			in = lo <= addr && addr < hi
			continue
		}
		if v, ok := strings.CutPrefix(line, key+":"); in && ok {
			return strings.TrimSpace(v), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping holds %#x with a %s line in /proc/self/smaps", addr, key)
}

package check

import (
	"errors"
	"strings"
	"testing"
)

func TestMemory(t *testing.T) {
	if err := Memory("x", 100, 0); err != nil {
		t.Errorf("no limit: %v", err)
	}
	if err := Memory("x", 100, 100); err != nil {
		t.Errorf("need = limit: %v", err)
	}
	err := Memory("exact KRR (n=9)", 3<<30, 1<<30)
	if !errors.Is(err, ErrMemory) || !errors.Is(err, ErrInput) {
		t.Fatalf("over the limit: %v, want ErrMemory wrapping ErrInput", err)
	}
	for _, want := range []string{"exact KRR (n=9)", "3221225472 bytes (3.0 GiB)", "1073741824 bytes (1.0 GiB)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not contain %q", err, want)
		}
	}
	if err := Memory("x", 1, -1); !errors.Is(err, ErrInput) || errors.Is(err, ErrMemory) {
		t.Errorf("negative limit: %v, want ErrInput only", err)
	}
	for b, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 5 << 20: "5.0 MiB", 3 << 40: "3.0 TiB"} {
		if got := FormatBytes(b); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", b, got, want)
		}
	}
}

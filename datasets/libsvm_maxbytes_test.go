package datasets

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
)

// ReadOptions.MaxBytes bounds the rows a LIBSVM read collects (12 bytes a
// non-zero, 16 a row), dense or sparse: 5,000 lines of 3 non-zeros collect
// 5,000·16 + 15,000·12 = 260,000 bytes. A cap one byte short is refused
// after the last line; a cap of 200,000 at line 4,096, the first check,
// where 4,095 rows and 12,285 non-zeros hold 212,940 bytes; the exact cap
// reads. Without a cap (0) nothing changes. Before 2026-11-28 only the
// dense matrix was bounded: a sparse read was never refused.
func TestLIBSVMReadMaxBytes(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "%d 1:%d 2:0.5 3:%d\n", i%2, i+1, i%7+1)
	}
	text := b.String()
	for _, tc := range []struct {
		max  int64
		want string // "" reads
	}{
		{0, ""},
		{260000, ""},
		{259999, "what was read by line 5000 (5000 rows, 15000 non-zeros) needs 260000 bytes (253.9 KiB), the limit is 259999 bytes"},
		{200000, "what was read by line 4096 (4095 rows, 12285 non-zeros) needs 212940 bytes (207.9 KiB), the limit is 200000 bytes"},
	} {
		for _, sparse := range []bool{false, true} {
			opt := ReadOptions{Format: LIBSVM, MaxBytes: tc.max}
			var err error
			if sparse {
				_, _, err = ReadLIBSVMSparseWith(context.Background(), strings.NewReader(text), opt)
			} else {
				_, err = Read(strings.NewReader(text), opt)
			}
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("MaxBytes %d, sparse %v: %v", tc.max, sparse, err)
			case tc.want != "" && (!errors.Is(err, check.ErrMemory) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("MaxBytes %d, sparse %v: err = %v, want ErrMemory with %q", tc.max, sparse, err, tc.want)
			}
		}
	}
}

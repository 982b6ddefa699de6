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
// reads sparse. A dense read also holds those rows while it fills the
// 5,000×3 X (120,000 bytes): it needs 380,000 bytes, and one short is
// refused at the matrix. Without a cap (0) nothing changes. Before
// 2026-11-28 only the dense matrix was bounded, alone.
func TestLIBSVMReadMaxBytes(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "%d 1:%d 2:0.5 3:%d\n", i%2, i+1, i%7+1)
	}
	text := b.String()
	const matrix = "a dense 5000×3 matrix beside the rows parsed (253.9 KiB), which are copied into it needs 380000 bytes (371.1 KiB)"
	for _, tc := range []struct {
		max          int64
		dense, spars string // "" reads
	}{
		{0, "", ""},
		{380000, "", ""},
		{379999, matrix + ", the limit is 379999 bytes", ""},
		{260000, matrix + ", the limit is 260000 bytes", ""},
		{259999, "what was read by line 5000 (5000 rows, 15000 non-zeros) needs 260000 bytes (253.9 KiB), the limit is 259999 bytes", "what was read by line 5000 (5000 rows, 15000 non-zeros) needs 260000 bytes (253.9 KiB), the limit is 259999 bytes"},
		{200000, "what was read by line 4096 (4095 rows, 12285 non-zeros) needs 212940 bytes (207.9 KiB), the limit is 200000 bytes", "what was read by line 4096 (4095 rows, 12285 non-zeros) needs 212940 bytes (207.9 KiB), the limit is 200000 bytes"},
	} {
		for _, sparse := range []bool{false, true} {
			opt := ReadOptions{Format: LIBSVM, MaxBytes: tc.max}
			var err error
			want := tc.dense
			if sparse {
				_, _, err = ReadLIBSVMSparseWith(context.Background(), strings.NewReader(text), opt)
				want = tc.spars
			} else {
				_, err = Read(strings.NewReader(text), opt)
			}
			switch {
			case want == "" && err != nil:
				t.Errorf("MaxBytes %d, sparse %v: %v", tc.max, sparse, err)
			case want != "" && (!errors.Is(err, check.ErrMemory) || !strings.Contains(err.Error(), want)):
				t.Errorf("MaxBytes %d, sparse %v: err = %v, want ErrMemory with %q", tc.max, sparse, err, want)
			}
		}
	}
}

// A CSV read holds its values in chunks of whole rows, the first of about
// firstChunkValues = 1,024 values and each next one twice as many rows up
// to chunkValues = 65,536 values, and gathers them into X. 30,000 rows of 3
// features: chunks of 341, 682, 1,364, 2,728, 5,456, 10,912 and 21,824
// rows (43,307 rows of capacity, 1,039,368 bytes); their targets: chunks
// of 1,024 to 16,384 rows (31,744, 253,952 bytes). 1,293,320 bytes of
// chunks, and X (720,000 bytes) beside them: a peak of 2,013,320 bytes. The
// chunks are counted as allocated and checked every 4,096 lines: a cap of
// 1 MB is passed at line 24,576, where the 21,824-row chunk was just
// allocated (24,574 rows read), and a cap one byte short of the peak at the
// matrix.
func TestCSVReadMaxBytes(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,c,y\n")
	for i := range 30000 {
		fmt.Fprintf(&b, "%d,0.5,%d,%d\n", i, i%7, i%2)
	}
	text := b.String()
	for _, tc := range []struct {
		max  int64
		want string
	}{
		{0, ""},
		{2013320, ""},
		{2013319, "a dense 30000×3 matrix beside the rows parsed (1.2 MiB), which are copied into it needs 2013320 bytes (1.9 MiB), the limit is 2013319 bytes"},
		{1000000, "the values read by line 24576 (24574 rows) needs 1293320 bytes (1.2 MiB), the limit is 1000000 bytes"},
	} {
		_, err := Read(strings.NewReader(text), ReadOptions{Format: CSV, MaxBytes: tc.max})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("MaxBytes %d: %v", tc.max, err)
		case tc.want != "" && (!errors.Is(err, check.ErrMemory) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("MaxBytes %d: err = %v, want ErrMemory with %q", tc.max, err, tc.want)
		}
	}
}

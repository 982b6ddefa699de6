package shard

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestFloat32ShardRange: float32 shards refuse a finite value beyond
// float32's range (it was written as +Inf) with its row and column,
// wrapping kernel.ErrFloat32Range and check.ErrInput, before any byte of
// the shard (WriteAs) or any shard of the set (WriteDirWith) is written,
// saying that float32 shards store X rounded to float32 (the bare kernel
// message said only that the value rounds to an infinity). float64 shards
// hold the value as it is.
func TestFloat32ShardRange(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1, 2, 3, 4, -5e38, 6})
	y := []float64{1, 2, 3}
	var b bytes.Buffer
	err := WriteAs(&b, x, y, Float32)
	if !errors.Is(err, kernel.ErrFloat32Range) || !errors.Is(err, check.ErrInput) || !strings.Contains(err.Error(), "shard: X, which a float32 shard stores rounded to float32: kernel: ") || !strings.Contains(err.Error(), "row 2, column 0: -5e+38 rounds to an infinity in float32") || b.Len() != 0 {
		t.Fatalf("WriteAs float32: err %v, %d bytes written", err, b.Len())
	}
	dir := t.TempDir() + "/set"
	_, err = WriteDirWith(dir, x, y, Options{Rows: 1, Type: Float32})
	if !errors.Is(err, kernel.ErrFloat32Range) || !strings.Contains(err.Error(), "shard: X, which float32 shards store rounded to float32: kernel: ") || !strings.Contains(err.Error(), "row 2, column 0") {
		t.Fatalf("WriteDirWith float32: err %v", err)
	}
	if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
		t.Fatalf("WriteDirWith float32 refused but created %s (%v)", dir, serr)
	}
	if err := WriteAs(&b, x, y, Float64); err != nil {
		t.Fatalf("WriteAs float64: %v", err)
	}
}

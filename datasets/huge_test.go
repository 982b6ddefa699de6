package datasets

import (
	"errors"
	"math"
	"testing"
)

// TestNewDense: NewDense gives a zeroed matrix of the asked shape, writable
// through Set and read back by At, and refuses shapes mat.NewDense panics
// on (ErrInput) and ones whose bytes overflow an int (ErrMemory), before
// allocating. TestXOnHugePages checks its huge-page advice on Linux.
func TestNewDense(t *testing.T) {
	for _, sz := range [][2]int{{1, 1}, {3, 5}, {700, 800}} {
		x, err := NewDense(sz[0], sz[1])
		if err != nil {
			t.Fatalf("%v: %v", sz, err)
		}
		if r, c := x.Dims(); r != sz[0] || c != sz[1] {
			t.Fatalf("%v: dims %d×%d", sz, r, c)
		}
		for _, v := range x.RawMatrix().Data {
			if v != 0 {
				t.Fatalf("%v: not zeroed: %g", sz, v)
			}
		}
		x.Set(sz[0]-1, sz[1]-1, 2.5)
		if got := x.At(sz[0]-1, sz[1]-1); got != 2.5 {
			t.Fatalf("%v: At after Set = %g", sz, got)
		}
	}
	for _, c := range []struct {
		rows, cols int
		want       error
	}{
		{0, 3, ErrInput}, {3, 0, ErrInput}, {-1, 3, ErrInput}, {3, -2, ErrInput},
		{math.MaxInt / 8, 2, ErrMemory}, {1 << 32, 1 << 30, ErrMemory},
	} {
		if x, err := NewDense(c.rows, c.cols); !errors.Is(err, c.want) || x != nil {
			t.Errorf("NewDense(%d, %d) = %v, %v; want %v", c.rows, c.cols, x, err, c.want)
		}
	}
}

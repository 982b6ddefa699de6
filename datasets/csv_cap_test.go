package datasets

import (
	"fmt"
	"strings"
	"testing"
)

// TestReadCSVExactCapacity: a dense CSV read holds X (float64 or float32)
// and y in slices whose capacity is their length, and the values cross the
// reader's chunks intact. 50,000 rows of 3 features cross two chunk
// boundaries (21,845 rows a chunk); rows of 70,000 features are wider than
// a chunk (one row each). Before, X and y grew by append and kept its
// spare capacity (150,000 values in a backing array of 175,104, 50,000
// labels in 55,296; a float32 X was clipped to its length, which hid the
// spare capacity but kept it allocated).
func TestReadCSVExactCapacity(t *testing.T) {
	for _, c := range []struct{ rows, d int }{{50000, 3}, {3, 70000}, {1, 1}} {
		var b strings.Builder
		for i := range c.rows {
			for j := range c.d {
				fmt.Fprintf(&b, "%d,", i*c.d+j)
			}
			fmt.Fprintf(&b, "%d\n", -i)
		}
		for _, f32 := range []bool{false, true} {
			name := fmt.Sprintf("%d×%d float32=%v", c.rows, c.d, f32)
			ds, err := ReadCSV(strings.NewReader(b.String()), ReadOptions{Header: HeaderAbsent, Float32: f32})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			n := c.rows * c.d
			var gotLen, gotCap int
			if f32 {
				// RawRow(0) is data[0:d], whose capacity is data's.
				gotLen, gotCap = n, cap(ds.X32.RawRow(0))
			} else {
				raw := ds.X.RawMatrix().Data
				gotLen, gotCap = len(raw), cap(raw)
			}
			if gotLen != n || gotCap != n || len(ds.Y) != c.rows || cap(ds.Y) != c.rows {
				t.Errorf("%s: X len %d cap %d (want %d), y len %d cap %d (want %d)", name, gotLen, gotCap, n, len(ds.Y), cap(ds.Y), c.rows)
			}
			for _, i := range []int{0, c.rows / 2, c.rows - 1} {
				for _, j := range []int{0, c.d - 1} {
					if v := at(ds, i, j); v != float64(i*c.d+j) {
						t.Fatalf("%s: X[%d][%d] = %g, want %d", name, i, j, v, i*c.d+j)
					}
				}
				if ds.Y[i] != float64(-i) {
					t.Fatalf("%s: y[%d] = %g, want %d", name, i, ds.Y[i], -i)
				}
			}
		}
	}
}

// at is X's value at (i, j), whichever of X and X32 holds it.
func at(ds *Dataset, i, j int) float64 {
	if ds.X32 != nil {
		return ds.X32.At(i, j)
	}
	return ds.X.At(i, j)
}

package experiments

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds arbitrary YAML to the spec decoder, seeded with every
// example spec (the corpus grows in testdata/fuzz/FuzzDecode): it must
// return a spec or an error wrapping ErrSpec, never panic, and a spec it
// accepts must encode and decode back to the same hash.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("examples", "*.yaml"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("name: x\ndataset: {name: cadata}\ntask: regression\nestimator: {type: krr, kernel: {type: gaussian, gamma: 1}, lambda: 1, approx: {type: meka, clusters: 5}}\n"))
	f.Add([]byte("[1, 2"))
	f.Add([]byte("name: &a x\nseed: *a\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(bytes.NewReader(b), ".")
		if err != nil {
			if !errors.Is(err, ErrSpec) {
				t.Fatalf("error not wrapping ErrSpec: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := s.Encode(&buf); err != nil {
			t.Fatalf("accepted spec does not encode: %v", err)
		}
		s2, err := Decode(&buf, s.dir)
		if err != nil {
			t.Fatalf("accepted spec does not decode again: %v\n%s", err, buf.String())
		}
		if s2.Hash() != s.Hash() {
			t.Fatalf("hash changed by encode → decode:\n%s", buf.String())
		}
	})
}

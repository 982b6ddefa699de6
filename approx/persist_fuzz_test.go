package approx

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"gonum.org/v1/gonum/mat"
)

// FuzzDecodeMap wraps arbitrary payloads in a valid container with one of
// the feature-map tags (or the partition tag), so that mutations reach the
// decoders; seeds are the payloads of small fitted maps. A payload that
// decodes must give a map whose Dim and Transform do not panic.
func FuzzDecodeMap(f *testing.F) {
	tags := []string{tagNystrom, tagRFF, tagMEKA, tagPartition}
	for name, m := range persistMaps(f) {
		b, err := MarshalMap(m)
		if err != nil {
			f.Fatal(name, err)
		}
		tag, payload, err := binfmt.Read(bytes.NewReader(b))
		if err != nil {
			f.Fatal(err)
		}
		for i, t := range tags {
			if t == tag {
				f.Add(byte(i), payload)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which byte, payload []byte) {
		tag := tags[int(which)%len(tags)]
		var buf bytes.Buffer
		if err := binfmt.Write(&buf, tag, payload); err != nil {
			t.Fatal(err)
		}
		if tag == tagPartition {
			p, err := LoadPartition(&buf)
			if err != nil {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("error not wrapping ErrFormat: %v", err)
				}
				return
			}
			_, d := p.Centroids.Dims()
			if _, err := p.Assign(mat.NewDense(2, d, nil)); err != nil && !errors.Is(err, ErrInput) {
				t.Fatalf("Assign on a loaded partition: %v", err)
			}
			return
		}
		m, err := LoadMap(&buf)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error not wrapping ErrFormat: %v", err)
			}
			return
		}
		for d := 1; d <= 3; d++ {
			dst := mat.NewDense(2, max(m.Dim(), 1), nil)
			_ = m.Transform(context.Background(), dst, mat.NewDense(2, d, []float64{0.1, -0.2, 0.3, 0.4, -0.5, 0.6}[:2*d]))
		}
	})
}

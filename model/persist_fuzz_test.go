package model

import (
	"errors"
	"testing"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"gonum.org/v1/gonum/mat"
)

// fuzzPredict runs a loaded estimator on small inputs of a few widths: a
// file that decodes must give a model that predicts or errors, never panics.
func fuzzPredict(est Estimator) {
	for d := 1; d <= 3; d++ {
		x := mat.NewDense(2, d, nil)
		for i := range x.RawMatrix().Data {
			x.RawMatrix().Data[i] = 0.25 * float64(i-2)
		}
		_, _ = est.Predict(x)
	}
}

// FuzzLoad feeds arbitrary bytes to Load (Unmarshal): the only acceptable
// outcomes are an estimator or an error wrapping ErrFormat. The seed corpus
// in testdata/fuzz/FuzzLoad holds small saved models of every type, so
// mutations explore the real format; the checksum keeps most of them from
// reaching the decoder, which FuzzDecode exercises directly.
func FuzzLoad(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("LANDMARK"))
	f.Fuzz(func(t *testing.T, b []byte) {
		est, err := Unmarshal(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error not wrapping ErrFormat: %v", err)
			}
			return
		}
		fuzzPredict(est)
	})
}

// FuzzDecode wraps arbitrary payloads in a valid container (magic, version,
// a type tag chosen by the first byte, correct CRC) so that every mutation
// reaches the payload decoders. The seeds in testdata/fuzz/FuzzDecode are the
// payloads of small saved models.
func FuzzDecode(f *testing.F) {
	tags := fuzzTags
	f.Add(byte(0), []byte{})
	f.Fuzz(func(t *testing.T, which byte, payload []byte) {
		var buf bytesBuffer
		if err := binfmt.Write(&buf, tags[int(which)%len(tags)], payload); err != nil {
			t.Fatal(err)
		}
		est, err := Unmarshal(buf.b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error not wrapping ErrFormat: %v", err)
			}
			return
		}
		fuzzPredict(est)
	})
}

// fuzzTags are FuzzDecode's type tags, chosen by its first argument (new
// tags go at the end, so that the seeds' choices keep their meaning).
var fuzzTags = []string{tagKRR, tagFalkon, tagSVM, tagBKASVM, tagSVR, tagOneClass}

// bytesBuffer is a minimal io.Writer.
type bytesBuffer struct{ b []byte }

func (w *bytesBuffer) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

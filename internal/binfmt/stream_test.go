package binfmt

import (
	"bytes"
	"errors"
	"io"
	"math"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// bigPayload writes fields spanning many chunks: a 300×300 dense matrix
// (720,000 bytes), a sparse matrix of 30,000 non-zeros and small fields
// around them.
func bigPayload(e *Enc) error {
	e.String("head")
	m := mat.NewDense(300, 300, nil)
	for i := range m.RawMatrix().Data {
		m.RawMatrix().Data[i] = float64(i) / 7
	}
	e.Dense(m)
	indptr := make([]int, 1001)
	indices := make([]int32, 0, 30000)
	values := make([]float64, 0, 30000)
	for i := range 1000 {
		for k := range 30 {
			indices = append(indices, int32(k*1000+i))
			values = append(values, float64(i)-float64(k)/3)
		}
		indptr[i+1] = len(values)
	}
	if err := e.CSR(30000, indptr, indices, values); err != nil {
		return err
	}
	e.Floats([]float64{1, 2, 3})
	e.Blob(bytes.Repeat([]byte{7}, 3*chunk+5))
	e.Int(-5)
	return nil
}

// checkBig reads what bigPayload wrote.
func checkBig(t *testing.T, d *Dec) {
	t.Helper()
	if s := d.String(); s != "head" {
		t.Fatalf("string %q (%v)", s, d.Err())
	}
	m := d.Matrix("m", 300, 300)
	if m == nil || m.At(299, 299) != float64(300*300-1)/7 {
		t.Fatalf("dense matrix (%v)", d.Err())
	}
	s := d.CSR("s", 1000, 30000)
	if s == nil || s.Indptr[999] != 999*30 || s.Indices[len(s.Indices)-1] != 29999 || s.Indices[len(s.Indices)-2] != 28999 || s.Values[len(s.Values)-1] != 999-29.0/3 {
		t.Fatalf("sparse matrix (%v)", d.Err())
	}
	if f := d.Floats(); len(f) != 3 || f[2] != 3 {
		t.Fatalf("floats %v", f)
	}
	if b := d.Blob(); len(b) != 3*chunk+5 || b[len(b)-1] != 7 {
		t.Fatalf("blob of %d bytes", len(b))
	}
	if d.Int() != -5 {
		t.Fatal("int")
	}
}

// WriteFunc writes the bytes Write writes for the same payload; Open
// decodes them from a reader, consuming exactly one file, and checks the
// checksum in Done.
func TestStreamRoundTrip(t *testing.T) {
	var mem Enc
	if err := bigPayload(&mem); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := Write(&want, "big", mem.Bytes()); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteFunc(&got, "big", bigPayload); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("streamed file of %d bytes differs from the buffered one of %d", got.Len(), want.Len())
	}
	two := append(bytes.Clone(got.Bytes()), got.Bytes()...)
	r := bytes.NewReader(two)
	for i := range 2 {
		tag, d, err := Open(r, int64(r.Len()))
		if err != nil || tag != "big" {
			t.Fatalf("file %d: %q %v", i, tag, err)
		}
		checkBig(t, d)
		if err := d.Done(); err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
	}
	if r.Len() != 0 {
		t.Fatalf("%d bytes left", r.Len())
	}
	// Unknown size: the payload is buffered and checked first.
	tag, d, err := Open(io.MultiReader(bytes.NewReader(got.Bytes())), -1)
	if err != nil || tag != "big" {
		t.Fatal(err)
	}
	checkBig(t, d)
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
}

// A streamed decode of a damaged file reports what Read would: a flipped
// payload byte is a checksum mismatch (even where the decoder fails first
// on the garbage), a truncated file or a payload length beyond the input is
// ErrFormat before any payload is decoded, and fields left unread are an
// error.
func TestStreamDamage(t *testing.T) {
	var b bytes.Buffer
	if err := WriteFunc(&b, "big", bigPayload); err != nil {
		t.Fatal(err)
	}
	good := b.Bytes()
	decode := func(f []byte, size int64) error {
		_, d, err := Open(bytes.NewReader(f), size)
		if err != nil {
			return err
		}
		_ = d.String()
		d.Matrix("m", 300, 300)
		d.CSR("s", 1000, 30000)
		d.Floats()
		d.Blob()
		d.Int()
		return d.Done()
	}
	for _, at := range []int{25, 30, 20 + 720000, len(good) - 200000, len(good) - 10, len(good) - 5} {
		f := bytes.Clone(good)
		f[at] ^= 0x5a
		if err := decode(f, int64(len(f))); !errors.Is(err, ErrChecksum) || !errors.Is(err, ErrFormat) {
			t.Errorf("byte %d flipped: %v", at, err)
		}
	}
	for _, n := range []int{5, 30, len(good) / 2, len(good) - 1} {
		if err := decode(good[:n], int64(n)); !errors.Is(err, ErrFormat) {
			t.Errorf("truncated to %d bytes: %v", n, err)
		}
		// A size that lies (more than the reader holds).
		if err := decode(good[:n], int64(len(good))); !errors.Is(err, ErrFormat) {
			t.Errorf("truncated to %d bytes, size claimed %d: %v", n, len(good), err)
		}
	}
	_, d, err := Open(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	_ = d.String()
	if err := d.Done(); !errors.Is(err, ErrFormat) || errors.Is(err, ErrChecksum) {
		t.Errorf("unread fields: %v", err)
	}
}

// totalAlloc returns the bytes f allocates.
func totalAlloc(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// Streaming costs the decoded data plus a window, never the file again: an
// 8 MB dense matrix is written to io.Discard with under 1 MB allocated
// (two 64 KiB chunks and the header; buffered, the payload alone is 8 MB),
// and read back with under 8 MB + 1 MB (the matrix itself is 8 MB; Read
// then NewDec would allocate it twice and more).
func TestStreamMemory(t *testing.T) {
	m := mat.NewDense(1000, 1000, nil)
	for i := range m.RawMatrix().Data {
		m.RawMatrix().Data[i] = math.Sqrt(float64(i))
	}
	fill := func(e *Enc) error { e.Dense(m); return nil }
	var file bytes.Buffer
	if err := WriteFunc(&file, "m", fill); err != nil {
		t.Fatal(err)
	}
	var err error
	if a := totalAlloc(func() { err = WriteFunc(io.Discard, "m", fill) }); err != nil || a > 1<<20 {
		t.Errorf("writing 8 MB allocated %d bytes (%v)", a, err)
	}
	var got *mat.Dense
	a := totalAlloc(func() {
		var d *Dec
		if _, d, err = Open(bytes.NewReader(file.Bytes()), int64(file.Len())); err == nil {
			got = d.Matrix("m", 1000, 1000)
			err = d.Done()
		}
	})
	if err != nil || !mat.Equal(got, m) {
		t.Fatalf("read back: %v", err)
	}
	if a > 8e6+1<<20 {
		t.Errorf("reading 8 MB allocated %d bytes", a)
	}
	t.Logf("write: 8,000,000-byte matrix; read allocated %d bytes", a)
}

// Write errors and an encoder that writes different fields on its two runs
// are reported.
func TestWriteFuncErrors(t *testing.T) {
	runs := 0
	err := WriteFunc(io.Discard, "t", func(e *Enc) error {
		runs++
		e.Int(runs * 50) // 1 byte, then 2
		return nil
	})
	if err == nil {
		t.Error("non-deterministic encoder accepted")
	}
	if err := WriteFunc(failWriter{}, "t", bigPayload); err == nil {
		t.Error("write error lost")
	}
	want := errors.New("boom")
	if err := WriteFunc(io.Discard, "t", func(*Enc) error { return want }); !errors.Is(err, want) {
		t.Errorf("fill error: %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write(p []byte) (int, error) { return 0, errors.New("disk full") }

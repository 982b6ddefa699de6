package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// wideSparse returns n rows of a d-column CSR with nnz non-zeros a row
// (datasets.SparseRegression) and ±1 labels from the sign of its target.
func wideSparse(t testing.TB, seed uint64, n, d, nnz int) (*datasets.CSR, []float64) {
	t.Helper()
	x, y, err := datasets.SparseRegression(n, d, nnz, rand.New(rand.NewPCG(seed, 3)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		if y[i] > 0 {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	return x, y
}

// csrBytes is what a CSR matrix holds in memory: float64 values, int32
// column indices and int row pointers.
func csrBytes(x kernel.Sparse) int {
	r, _ := x.Dims()
	_, _, v := x.CSR()
	return 12*len(v) + 8*(r+1)
}

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// The case: an SVM on 2,000 × 50,000 rows with 20 non-zeros each.
// At γ = 0.05 the rows are nearly orthogonal in kernel space and every row
// is a support vector, so the model holds the whole CSR (40,000 non-zeros,
// 496 KB in memory). Its file is within 2× of
// those bytes (it was 800 MB with dense support vectors); loading it
// allocates the CSR and coefficients, not d floats a row; and predicting 500
// sparse rows after the load allocates the blocks of K, not an M × d dense
// copy — all checked with bounds derived below, and the predictions equal
// the fitted model's bit for bit.
func TestSparseSVMFileAndMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("fits an SVM on 2,000 rows")
	}
	const n, d, nnz, nt = 2000, 50000, 20, 500
	x, y := wideSparse(t, 1, n, d, nnz)
	xt, _ := wideSparse(t, 2, nt, d, nnz)
	s := &SVM{Kernel: kernel.Gaussian{Gamma: 0.05}, C: 1}
	if err := s.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	sv, ok := s.fit.dec.sv.(kernel.Sparse)
	if !ok {
		t.Fatalf("support vectors %T", s.fit.dec.sv)
	}
	m, _ := sv.Dims()
	path := filepath.Join(t.TempDir(), "svm.lmk")
	var err error
	saveAlloc := allocated(func() { err = SaveFile(path, s) })
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	cb := csrBytes(sv)
	t.Logf("%d support vectors, CSR %d bytes in memory, file %d bytes (%.2f×), save allocated %d bytes", m, cb, fi.Size(), float64(fi.Size())/float64(cb), saveAlloc)
	if fi.Size() > 2*int64(cb) {
		t.Fatalf("file of %d bytes, more than 2× the %d bytes of CSR support vectors", fi.Size(), cb)
	}
	// Saving streams: two 64 KiB chunks and small fields, nothing of the
	// model's size (a buffered save allocates the payload, ≥ the file).
	if saveAlloc > 1<<20 {
		t.Fatalf("save allocated %d bytes", saveAlloc)
	}
	var l Estimator
	loadAlloc := allocated(func() { l, err = LoadFile(path) })
	if err != nil {
		t.Fatal(err)
	}
	// The CSR arrays, the m×1 coefficients and a 64 KiB window, with 1 MB
	// to spare for the small fields and the task infos.
	if want := uint64(cb + 8*m + 1<<20); loadAlloc > want {
		t.Fatalf("load allocated %d bytes, want ≤ %d", loadAlloc, want)
	}
	var got, want *mat.Dense
	predAlloc := allocated(func() { got, err = l.(*SVM).DecisionFunction(xt) })
	if err != nil {
		t.Fatal(err)
	}
	// Two blocks of 256 test rows: K(X_B, S) of 256·m floats (4.1 MB)
	// each, a d-float scatter buffer per worker, the output; 2 MB to spare.
	// A dense copy of the support vectors alone would be m·d·8 = 800 MB.
	if bound := uint64(2*256*m*8 + runtime.GOMAXPROCS(0)*d*8 + 2<<20); predAlloc > bound {
		t.Fatalf("predicting %d rows allocated %d bytes, want ≤ %d", nt, predAlloc, bound)
	}
	t.Logf("load allocated %d bytes, predicting %d rows %d bytes", loadAlloc, nt, predAlloc)
	if want, err = s.DecisionFunction(xt); err != nil {
		t.Fatal(err)
	}
	if !sameBits(got.RawMatrix().Data, want.RawMatrix().Data) {
		t.Fatal("loaded model's decision values differ from the fitted model's")
	}
}

// BKA-SVM and exact KRR on the same 2,000 × 50,000 rows: their files hold
// the sparse rows once (BKA-SVM's local decision functions refer to the
// global support vectors by position), within 2× of the CSR bytes, and the
// loaded models predict bit-identically. BKA-SVM's file also holds the
// k-means partition, whose centroids (dense k × d in memory) are saved as
// CSR since format version 3: the whole file is within 2× of the CSR bytes
// of the support vectors plus those of the centroids' non-zeros (before,
// the 4 dense centroids alone took 1.6 MB of a 2.04 MB file).
func TestSparseBKAKRRFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("fits BKA-SVM and KRR on 2,000 rows")
	}
	const n, d, nnz, nt = 2000, 50000, 20, 300
	x, y := wideSparse(t, 1, n, d, nnz)
	xt, _ := wideSparse(t, 2, nt, d, nnz)
	for _, est := range []Estimator{
		&BKASVM{Kernel: kernel.Gaussian{Gamma: 0.05}, C: 1, Clusters: 4, Seed: 1, Prediction: LocalPrediction},
		&KRR{Kernel: kernel.Gaussian{Gamma: 0.05}, Lambda: 1e-3},
	} {
		if err := est.Fit(context.Background(), x, y); err != nil {
			t.Fatal(err)
		}
		var rows kernel.Sparse
		extra, part := 0, 0 // CSR bytes of the centroids, bytes of the saved partition
		switch m := est.(type) {
		case *BKASVM:
			rows, _ = m.fit.global.sv.(kernel.Sparse)
			var pb bytes.Buffer
			if err := cluster.SavePartition(&pb, m.Partition()); err != nil {
				t.Fatal(err)
			}
			part = pb.Len()
			cent := m.Partition().Centroids
			k, _ := cent.Dims()
			nz := 0
			for _, v := range cent.RawMatrix().Data {
				if v != 0 {
					nz++
				}
			}
			extra = 12*nz + 8*(k+1)
		case *KRR:
			if p, ok := m.Predictor().(*sparseExpansion); ok {
				rows, _ = p.dec.sv.(kernel.Sparse)
			}
		}
		if rows == nil {
			t.Fatalf("%T does not hold sparse rows", est)
		}
		b, err := Marshal(est)
		if err != nil {
			t.Fatal(err)
		}
		cb := csrBytes(rows) + extra
		t.Logf("%T: file %d bytes (partition %d), CSR rows and centroids %d bytes: file/CSR = %.2f", est, len(b), part, cb, float64(len(b))/float64(cb))
		if len(b) > 2*cb {
			t.Errorf("%T: file of %d bytes (partition %d), more than 2× the %d CSR bytes it holds", est, len(b), part, cb)
		}
		l, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, xx := range []mat.Matrix{xt, xt.ToDense()} {
			want, err1 := est.(decider).DecisionFunction(xx)
			got, err2 := l.(decider).DecisionFunction(xx)
			if err1 != nil || err2 != nil || !sameBits(got.RawMatrix().Data, want.RawMatrix().Data) {
				t.Fatalf("%T on %T: loaded model's decision values differ (%v, %v)", est, xx, err1, err2)
			}
		}
	}
}

// Every single-byte change and every truncation of the payload of a sparse
// SVM, BKA-SVM and KRR file (rewrapped with a valid checksum, so the
// decoders see it) gives an error wrapping ErrFormat or a model that
// predicts: never a panic. Changes inside the CSR sections hit the row
// counts, index gaps and values that Dec.Data validates.
func TestSparseFileCorruption(t *testing.T) {
	tags := map[string]string{"svm-sparse": tagSVM, "krr-sparse": tagKRR, "bkasvm-sparse": tagBKASVM}
	xs := csrOf(t, sparseConformance(24, 15, 3, 12).xTest)
	for _, c := range seedCases() {
		tag, ok := tags[c.name]
		if !ok {
			continue
		}
		b, err := Marshal(fitCase(t, c))
		if err != nil {
			t.Fatal(err)
		}
		_, payload, err := binfmt.Read(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		try := func(p []byte, what string) {
			var buf bytes.Buffer
			if err := binfmt.Write(&buf, tag, p); err != nil {
				t.Fatal(err)
			}
			est, err := Unmarshal(buf.Bytes())
			if err != nil {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("%s %s: error not wrapping ErrFormat: %v", c.name, what, err)
				}
				return
			}
			_, _ = est.Predict(xs)
		}
		for i := range payload {
			for _, delta := range []byte{1, 0x80, 0xff} {
				p := bytes.Clone(payload)
				p[i] ^= delta
				try(p, fmt.Sprintf("byte %d ^ %#x", i, delta))
			}
		}
		for n := range payload {
			try(payload[:n], fmt.Sprintf("truncated to %d bytes", n))
		}
	}
}

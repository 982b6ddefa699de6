package kernel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Separable reports whether k factors over any split of the columns into D
// and S, k(x, c) = k(x_D, c_D)·k(x_S, c_S), with the same kernel on each
// part: the Gaussian exp(−γ‖x−c‖²) (the squared distance is a sum over
// columns) and the Laplacian exp(−γ‖x−c‖₁) (so is the L1 distance), whose
// exponentials of sums are products of exponentials. The polynomial and
// linear kernels are not.
func Separable(k Kernel) bool {
	switch k.(type) {
	case Gaussian, Laplacian:
		return true
	}
	return false
}

// DefaultMaxPatterns is the pattern cap DetectSplit uses when given 0:
// beyond it the groups of a Factored operator are too many to pay on any
// data set the cost model would accept.
const DefaultMaxPatterns = 4096

// Split is a dense matrix's columns split into D, the columns taking three
// or more distinct values, and S, those taking at most two (one-hot
// indicators, binary flags, constant columns; standardization keeps them
// two-valued), with each row's pattern on S: DetectSplit finds it in one
// scan of X, before any center exists, so that a fit can plan what a
// Factored operator holds (Bytes, ScratchBytes) and decide whether it pays
// (Gain).
//
// Rows with equal S-values form a group; groups are numbered in the order
// of their first row, so a Split depends only on X.
type Split struct {
	// Dense and Discrete are D and S, as increasing column indices.
	Dense, Discrete []int
	// Patterns is the number of distinct rows of X restricted to S (groups).
	Patterns int

	n      int
	values [][2]float64 // per column of S: its value for bit 0 and bit 1
	keys   []byte       // per pattern: its bits, width bytes per pattern
	width  int          // ⌈|S|/8⌉
	group  []int32      // per row of X: its pattern
	sizes  []int        // per pattern: its rows
}

// String describes the split, as "10 dense + 44 two-valued columns, 75
// patterns".
func (s *Split) String() string {
	return fmt.Sprintf("%d dense + %d two-valued columns, %d patterns", len(s.Dense), len(s.Discrete), s.Patterns)
}

// Rows is the number of rows of X the split was detected on.
func (s *Split) Rows() int { return s.n }

// Sizes returns the number of rows of each pattern, in group order (a copy).
func (s *Split) Sizes() []int { return append([]int(nil), s.sizes...) }

// DetectSplit scans a dense X (*mat.Dense or *Dense32) once, O(n·d), and
// returns its split into dense and two-valued columns with the rows' S
// patterns. It returns false (no split) when X is of another type (sparse X
// is not factored), empty, has no two-valued column, has no column with
// three or more values (|D| = 0: every column two-valued), or more than
// maxPatterns patterns (0 means DefaultMaxPatterns): the scan stops as
// soon as the cap is passed, or X has more than 2³¹−1 rows. Values are compared with ==, so −0 and +0 are
// one value.
func DetectSplit(x mat.Matrix, maxPatterns int) (*Split, bool) {
	if maxPatterns <= 0 {
		maxPatterns = DefaultMaxPatterns
	}
	switch v := x.(type) {
	case *mat.Dense:
		if v == nil || v.IsEmpty() {
			return nil, false
		}
		r := v.RawMatrix()
		return detect(r.Data, r.Rows, r.Cols, r.Stride, maxPatterns)
	case *Dense32:
		if v == nil || v.rows == 0 || v.cols == 0 {
			return nil, false
		}
		return detect(v.data, v.rows, v.cols, v.cols, maxPatterns)
	}
	return nil, false
}

// detect is DetectSplit on row-major data with the given stride.
func detect[T float32 | float64](data []T, n, d, stride, maxPatterns int) (*Split, bool) {
	if int64(n) > math.MaxInt32 {
		return nil, false // rows are numbered in int32
	}
	// Pass 1: each column's first two distinct values, or that it has more.
	vals := make([][2]T, d)
	count := make([]uint8, d) // distinct values seen, 3 meaning "three or more"
	live := make([]int, d)    // columns still at most two-valued
	for j := range live {
		live[j] = j
	}
	for i := 0; i < n && len(live) > 0; i++ {
		row := data[i*stride : i*stride+d]
		k := 0
		for _, j := range live {
			v := row[j]
			switch {
			case count[j] == 0:
				vals[j][0], count[j] = v, 1
			case v == vals[j][0]:
			case count[j] == 1:
				vals[j][1], count[j] = v, 2
			case v == vals[j][1]:
			default:
				count[j] = 3
				continue
			}
			live[k] = j
			k++
		}
		live = live[:k]
	}
	s := &Split{n: n}
	for j := range d {
		if count[j] == 3 {
			s.Dense = append(s.Dense, j)
		} else {
			s.Discrete = append(s.Discrete, j)
		}
	}
	if len(s.Dense) == 0 || len(s.Discrete) == 0 {
		return nil, false
	}
	s.values = make([][2]float64, len(s.Discrete))
	for q, j := range s.Discrete {
		s.values[q] = [2]float64{float64(vals[j][0]), float64(vals[j][1])}
		if count[j] == 1 {
			s.values[q][1] = s.values[q][0]
		}
	}
	// Pass 2: each row's pattern, one bit per column of S (the index of its
	// value), looked up by its bytes.
	s.width = (len(s.Discrete) + 7) / 8
	key := make([]byte, s.width)
	ids := make(map[string]int32)
	s.group = make([]int32, n)
	for i := range n {
		row := data[i*stride : i*stride+d]
		clear(key)
		for q, j := range s.Discrete {
			if row[j] != vals[j][0] {
				key[q/8] |= 1 << (q % 8)
			}
		}
		id, ok := ids[string(key)]
		if !ok {
			if len(s.sizes) == maxPatterns {
				return nil, false
			}
			id = int32(len(s.sizes))
			ids[string(key)] = id
			s.keys = append(s.keys, key...)
			s.sizes = append(s.sizes, 0)
		}
		s.group[i] = id
		s.sizes[id]++
	}
	s.Patterns = len(s.sizes)
	return s, true
}

// pattern writes pattern p's S-values into dst (|S| values).
func (s *Split) pattern(dst []float64, p int) {
	key := s.keys[p*s.width : (p+1)*s.width]
	for q := range s.Discrete {
		dst[q] = s.values[q][key[q/8]>>(q%8)&1]
	}
}

// Factoring's cost model (Gain). A pair (row, center) of a K_nM pass costs
// about a + b·d seconds per 2·10⁸ pairs: a for the exp and the products
// with v, b per feature of the distance product. The constants come from
// `landmark bench kernel -d 10,54 -float32 -no-python -no-gemm` (fused
// K(X,C)ᵀ(K(X,C)v), n = 100,000, M = 2,000, 2·10⁸ pairs) on the project's
// AMD EPYC (Zen 4, 2 cores, AVX-512), 2026-11-26: float64 0.129 s at
// d = 10 and 0.287 s at d = 54, so b = 0.158/44 = 0.0036 and a = 0.093;
// float32 0.060 s and 0.140 s, so b = 0.0018 and a = 0.042.
const (
	pairCost64, featureCost64 = 0.093, 0.0036
	pairCost32, featureCost32 = 0.042, 0.0018
)

// MinGroupRows is the mean group size below which Gain refuses factoring:
// each group costs a few products of M×t vectors and the start of a pass
// of the engine, which at fewer than 32 rows a group (P > n/32) no longer
// disappears behind its n_p·M pairs.
const MinGroupRows = 32

// Gain returns the predicted ratio of a factored pass's time to an
// unfactored one's (below 1: faster) for data with this split, from the
// per-pair cost model a + b·d (float32 passes when f32): (a + b·|D| +
// a·P/n) / (a + b·d), the middle term charging each group's scalings by
// T[p] and its start as one pair per center; and false when the groups
// are too small (Patterns > n/MinGroupRows).
func (s *Split) Gain(f32 bool) (ratio float64, ok bool) {
	a, b := pairCost64, featureCost64
	if f32 {
		a, b = pairCost32, featureCost32
	}
	d := float64(len(s.Dense) + len(s.Discrete))
	full := a + b*d
	// Per pair: the exp and dot with |D| features; per group and center a
	// few scalings, spread over the group's rows.
	fact := a + b*float64(len(s.Dense)) + a*float64(s.Patterns)/float64(s.n)
	return fact / full, s.Patterns*MinGroupRows <= s.n
}

// Pays reports whether the cost model predicts a factored pass at least a
// quarter faster than an unfactored one (Gain below 0.75) with groups
// large enough: the choice of an automatic mode.
func (s *Split) Pays(f32 bool) bool {
	r, ok := s.Gain(f32)
	return ok && r <= 0.75
}

// Bytes is what a Factored built on this split with M centers holds
// besides its Ops: X_D (4 bytes a value when x32, X a *Dense32 read in
// float32 by the kernel k, else 8), the permutation and group starts, T
// (P×M) and C_D (M×|D|; the copy of C_S, and a sparse C's dense copy, are
// dropped once T is computed).
func (s *Split) Bytes(k Kernel, x32 bool, m int) int64 {
	elem := int64(8)
	if x32 && runs32(k, false) {
		elem = 4
	}
	n, p, dd := int64(s.n), int64(s.Patterns), int64(len(s.Dense))
	return elem*n*dd + 4*n + 8*(p+1) + 8*p*int64(m) + 8*int64(m)*dd
}

// ScratchBytes is the live memory of the Ops of a Factored built on this
// split with M centers and engine options opt in products with t
// right-hand sides (t = 0: Block): one packed C_D and its norms (shared by
// the groups' Ops), every group's row norms, and one group's per-call
// scratch (its blocks, partial sums and packing buffers) is live at a time;
// plus the products' own M×t and group-sized buffers. The partial sums the
// engine recycles (one package-wide buffer) and each group's padded copy of
// the right-hand side outlive a call only as garbage the collector takes
// back (collectable bounds them): they are not counted.
func (s *Split) ScratchBytes(k Kernel, x32 bool, m, t int, opt Options) int64 {
	var held, call int64
	s.eachGroup(k, x32, m, t, opt, func(op *Op, packed, own, _ int64) {
		held += own
		call = max(call, op.ScratchBytes(t)-packed)
	})
	tw := int64(max(t, 1))
	maxRows := int64(maxSize(s.sizes))
	own := 8 * (3*int64(m)*tw + maxRows*tw)
	if t == 0 {
		own = 8 * int64(min(max(blockChunkBytes/(8*m), panelRows), int(maxRows))) * int64(m)
	}
	return held + call + own
}

// collectable bounds what a product's groups leave behind as garbage
// (ScratchBytes does not count it): every group's pooled partial sums and
// padded right-hand side (in float64 and float32 for one column, panels
// of 16 columns for more).
func (s *Split) collectable(k Kernel, x32 bool, m, t int, opt Options) int64 {
	var g int64
	s.eachGroup(k, x32, m, t, opt, func(_ *Op, _, _, partials int64) { g += partials })
	mp, tw := int64(roundUp(m, panelCols32)), int64(max(t, 1))
	if t > 1 {
		tw = int64(roundUp(t, 16))
	}
	return g + int64(s.Patterns)*12*mp*tw
}

// eachGroup calls f with a shape-only Op of each group, the bytes an Op
// of its shape keeps once prepared (packed C_D and norms, from the engine's
// own count 8·(mp·(d+2) + n), or in float32 the packed centers in 4 bytes),
// the part of them this group's Op adds (the first group's all of it, the
// others' only their rows' norms: they share the first one's packed C_D)
// and a bound on its partial sums (segments × mp × the right-hand sides,
// rounded up to 16 for several).
func (s *Split) eachGroup(k Kernel, x32 bool, m, t int, opt Options, f func(op *Op, packed, own, partials int64)) {
	dd := int64(len(s.Dense))
	x32 = x32 && runs32(k, false)
	f32 := (x32 || opt.Float32) && runs32(k, false)
	mp := int64(roundUp(m, panelCols32))
	tw := int64(max(t, 1))
	if t > 1 {
		tw = int64(roundUp(t, 16)) // the panel products' partials
	}
	centers := 8 * mp * (dd + 2)
	if f32 {
		centers = 4*mp*dd + 16*mp
	}
	for g, np := range s.sizes {
		op := NewOp(k, stubX(np, int(dd), x32), stubX(m, int(dd), false), opt)
		b := op.BlockRows()
		packed := centers + 8*int64(np)
		own := packed
		if g > 0 {
			own -= centers
		}
		f(op, packed, own, 8*int64(segments((np+b-1)/b, int(mp*tw)))*mp*tw)
	}
}

// stubX is a matrix of shape r×c without values, for sizing an Op's
// scratch (ScratchBytes reads shapes only): a *Dense32 when x32.
func stubX(r, c int, x32 bool) mat.Matrix {
	if x32 {
		return &Dense32{rows: r, cols: c}
	}
	var d mat.Dense
	d.SetRawMatrix(blas64.General{Rows: r, Cols: c, Stride: c})
	return &d
}

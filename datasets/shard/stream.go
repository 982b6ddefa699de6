package shard

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
)

// Stream decodes one shard's rows block by block, so that a reader holds a
// block of rows instead of the whole shard, and checks the shard's
// checksum as it goes: the call that returns the last rows verifies the
// CRC-32 over every byte and fails (ErrChecksum) instead of returning them
// when it does not match. A caller uses a block's rows only once it has
// the whole shard without error, or discards what it computed from the
// shard on an error.
type Stream struct {
	r         io.Reader
	h         hash.Hash32
	ver       int // 1: "LMKSHRD1", 2: "LMKSHRD2"
	width     int // bytes of one element of X
	rows, d   int
	rowBytes  int                // bytes of one row in the rows section
	done      int                // rows returned
	yr        io.Reader          // format 1 with targets: the targets' section, read beside X
	hy        hash.Hash32        // its CRC-32, combined with X's at the end
	ny        int64              // its bytes read
	keepY     []float64          // format 1 read by Read: where y is decoded at the end
	tailAt    func([]byte) error // format 1 with targets: reads the checksum
	n         int64              // bytes consumed
	raw, rawY []byte
	err       error // sticky
}

// headerBytes is the size of a shard's header in format 1 or 2.
func headerBytes(ver int) int64 {
	if ver == 1 {
		return 24
	}
	return 32
}

// NewStream opens a shard of size bytes held by r for streaming, checking
// its header and size against want (rows, d; zero skips the check). With
// targets the rows come with their targets: a float64 shard (format 1)
// stores y after X, so a second sequential read walks y's section in step
// with the rows (r is read at two offsets); a Float32 shard interleaves
// them with the rows.
// Without targets, Read fills only X and the targets' bytes are read (and
// checked) at the end. The errors wrap ErrFormat; the caller names the file.
func NewStream(r io.ReaderAt, size int64, wantRows, wantD int, targets bool) (*Stream, error) {
	s, err := newStream(io.NewSectionReader(r, 0, size), wantRows, wantD)
	if err != nil {
		return nil, err
	}
	if want := s.Bytes(); size != want {
		return nil, fmt.Errorf("shard: %w: shard of %d×%d %s is %d bytes, want %d", ErrFormat, s.rows, s.d, s.Type(), size, want)
	}
	if targets && s.ver == 1 {
		// The targets follow X: a second reader walks their section in
		// step with the rows, hashing it on its own; the two checksums
		// are combined (crc32Combine) into the file's.
		off := headerBytes(1) + 8*int64(s.rows)*int64(s.d)
		s.yr = bufio.NewReaderSize(io.NewSectionReader(r, off, 8*int64(s.rows)), 1<<16)
		s.hy = crc32.NewIEEE()
		s.tailAt = func(b []byte) error {
			_, err := r.ReadAt(b, size-4)
			return err
		}
	}
	return s, nil
}

// newStream reads and checks the header from r, which is then read in
// order to the end.
func newStream(r io.Reader, wantRows, wantD int) (*Stream, error) {
	s := &Stream{r: bufio.NewReaderSize(r, 1<<16), h: crc32.NewIEEE()}
	head := make([]byte, 32)
	if _, err := io.ReadFull(s.r, head[:24]); err != nil {
		return nil, fmt.Errorf("shard: %w: header: %w", ErrFormat, err)
	}
	switch string(head[:8]) {
	case magic:
		s.ver, s.width = 1, 8
		head = head[:24]
	case magic2:
		s.ver = 2
		if _, err := io.ReadFull(s.r, head[24:]); err != nil {
			return nil, fmt.Errorf("shard: %w: header: %w", ErrFormat, err)
		}
		w := binary.LittleEndian.Uint64(head[24:])
		if w != 4 && w != 8 {
			return nil, fmt.Errorf("shard: %w: element width %d bytes, want 4 or 8", ErrFormat, w)
		}
		s.width = int(w)
	default:
		return nil, fmt.Errorf("shard: %w: not a shard (magic %q)", ErrFormat, head[:8])
	}
	s.h.Write(head)
	s.n = int64(len(head))
	rows, d := binary.LittleEndian.Uint64(head[8:]), binary.LittleEndian.Uint64(head[16:])
	if rows < 1 || d < 1 || rows > 1<<40 || d > 1<<24 || rows*d > 1<<34 {
		return nil, fmt.Errorf("shard: %w: shard claims %d×%d", ErrFormat, rows, d)
	}
	if wantRows > 0 && (int(rows) != wantRows || int(d) != wantD) {
		return nil, fmt.Errorf("shard: %w: shard is %d×%d, manifest says %d×%d", ErrFormat, rows, d, wantRows, wantD)
	}
	s.rows, s.d = int(rows), int(d)
	s.rowBytes = s.width * s.d
	if s.ver == 2 {
		s.rowBytes += 8
	}
	return s, nil
}

// Rows and D are the shard's shape.
func (s *Stream) Rows() int { return s.rows }

// D is the number of columns.
func (s *Stream) D() int { return s.d }

// Type is the element type of the shard's X.
func (s *Stream) Type() Type {
	if s.width == 4 {
		return Float32
	}
	return Float64
}

// Bytes is the shard's size in bytes.
func (s *Stream) Bytes() int64 {
	return FileBytes(s.rows, s.d, s.Type())
}

// BytesRead is how many bytes of the shard the stream has consumed so far
// (the targets read ahead included).
func (s *Stream) BytesRead() int64 { return s.n + s.ny }

// FileBytes is the size of a shard of rows×d with element type t, in the
// layout WriteAs writes.
func FileBytes(rows, d int, t Type) int64 {
	r, dd := int64(rows), int64(d)
	if t == Float32 {
		return headerBytes(2) + r*(4*dd+8) + 4
	}
	return headerBytes(1) + 8*r*dd + 8*r + 4
}

// Read decodes the next rows into x (row-major, k rows of d values) and,
// when y is not nil, their targets into y (NewStream with targets, or a
// Float32 shard), k = min(rows left, len(x)/d, len(y)). It returns k. The
// call that returns the shard's last rows also reads the checksum: on a
// mismatch it returns 0 and an error wrapping ErrChecksum. After the last
// rows it returns 0, io.EOF. Errors are sticky.
func (s *Stream) Read(x, y []float64) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.done == s.rows {
		return 0, io.EOF
	}
	k := min(s.rows-s.done, len(x)/s.d)
	if y != nil {
		if s.ver == 1 && s.yr == nil {
			s.err = fmt.Errorf("shard: %w: targets asked of a stream opened without them", ErrInput)
			return 0, s.err
		}
		k = min(k, len(y))
	}
	if k < 1 {
		return 0, fmt.Errorf("shard: %w: a buffer of %d values holds no row of %d", ErrInput, len(x), s.d)
	}
	// Decode in chunks of at most 1 MiB of the file.
	chunk := max(1, (1<<20)/s.rowBytes)
	for i := 0; i < k; {
		c := min(k-i, chunk)
		nb := c * s.rowBytes
		if cap(s.raw) < nb {
			s.raw = make([]byte, nb)
		}
		raw := s.raw[:nb]
		if _, err := io.ReadFull(s.r, raw); err != nil {
			s.err = fmt.Errorf("shard: %w: truncated shard: %w", ErrFormat, err)
			return 0, s.err
		}
		s.h.Write(raw)
		s.n += int64(nb)
		s.decode(raw, x[i*s.d:(i+c)*s.d], y, i, c)
		i += c
	}
	if s.yr != nil {
		// In step with the rows, wanted this time or not.
		yt := y
		if yt == nil {
			yt = make([]float64, k)
		}
		if err := s.readTargets(yt[:k]); err != nil {
			s.err = err
			return 0, err
		}
	}
	s.done += k
	if s.done == s.rows {
		if err := s.finish(); err != nil {
			s.err = err
			return 0, err
		}
	}
	return k, nil
}

// decode converts c rows of raw bytes into x and, in format 2, y[i:i+c].
func (s *Stream) decode(raw []byte, x, y []float64, i, c int) {
	d := s.d
	switch {
	case s.ver == 1:
		for j := range x {
			x[j] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*j:]))
		}
	case s.width == 4:
		for r := range c {
			row := raw[r*s.rowBytes:]
			xr := x[r*d : (r+1)*d]
			for j := range xr {
				xr[j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(row[4*j:])))
			}
			if y != nil {
				y[i+r] = math.Float64frombits(binary.LittleEndian.Uint64(row[4*d:]))
			}
		}
	default:
		for r := range c {
			row := raw[r*s.rowBytes:]
			xr := x[r*d : (r+1)*d]
			for j := range xr {
				xr[j] = math.Float64frombits(binary.LittleEndian.Uint64(row[8*j:]))
			}
			if y != nil {
				y[i+r] = math.Float64frombits(binary.LittleEndian.Uint64(row[8*d:]))
			}
		}
	}
}

// finish reads what follows the rows — format 1's targets, unless read
// ahead — and the checksum, and compares it.
func (s *Stream) finish() error {
	if s.yr != nil {
		return s.check(crc32Combine(s.h.Sum32(), s.hy.Sum32(), s.ny))
	}
	if s.ver == 1 {
		buf := make([]byte, 8*min(s.rows, 8192))
		for i := 0; i < s.rows; {
			c := min(s.rows-i, len(buf)/8)
			if _, err := io.ReadFull(s.r, buf[:8*c]); err != nil {
				return fmt.Errorf("shard: %w: truncated shard: %w", ErrFormat, err)
			}
			s.h.Write(buf[:8*c])
			s.n += int64(8 * c)
			if s.keepY != nil {
				for j := range c {
					s.keepY[i+j] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*j:]))
				}
			}
			i += c
		}
	}
	return s.check(s.h.Sum32())
}

// check reads the stored checksum and compares it with sum.
func (s *Stream) check(sum uint32) error {
	var tail [4]byte
	var err error
	if s.tailAt != nil {
		// The targets were read ahead; the checksum follows them.
		err = s.tailAt(tail[:])
	} else {
		_, err = io.ReadFull(s.r, tail[:])
	}
	if err != nil {
		return fmt.Errorf("shard: %w: missing checksum: %w", ErrFormat, err)
	}
	s.n += 4
	if stored := binary.LittleEndian.Uint32(tail[:]); stored != sum {
		return fmt.Errorf("shard: %w (stored %08x, computed %08x)", ErrChecksum, stored, sum)
	}
	return nil
}

// readTargets decodes the next len(y) targets of a format 1 shard from its
// targets' section.
func (s *Stream) readTargets(y []float64) error {
	nb := 8 * len(y)
	if cap(s.rawY) < nb {
		s.rawY = make([]byte, nb)
	}
	raw := s.rawY[:nb]
	if _, err := io.ReadFull(s.yr, raw); err != nil {
		return fmt.Errorf("shard: %w: truncated targets: %w", ErrFormat, err)
	}
	s.hy.Write(raw)
	s.ny += int64(nb)
	for i := range y {
		y[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return nil
}

// gf2 is a linear map on 32-bit vectors over GF(2), column i the image of
// bit i.
type gf2 [32]uint32

func (m *gf2) apply(v uint32) uint32 {
	var s uint32
	for i := 0; v != 0; i, v = i+1, v>>1 {
		if v&1 != 0 {
			s ^= m[i]
		}
	}
	return s
}

// then returns n∘m (m first).
func (m *gf2) then(n *gf2) gf2 {
	var r gf2
	for i := range r {
		r[i] = n.apply(m[i])
	}
	return r
}

// crc32Combine returns the CRC-32 (IEEE) of A‖B from c1 = CRC(A), c2 =
// CRC(B) and len2 = |B| bytes. The register's update by one zero bit is
// the linear map Z: r ↦ (r >> 1) ⊕ (r&1 ? 0xEDB88320 : 0); feeding B
// after A leaves Z^(8·len2) applied to A's register plus B's contribution,
// and the initial and final complements cancel, so CRC(A‖B) =
// Z^(8·len2)(c1) ⊕ c2 (Z^(8·len2) by repeated squaring).
func crc32Combine(c1, c2 uint32, len2 int64) uint32 {
	var op gf2
	op[0] = crc32.IEEE
	for i := 1; i < 32; i++ {
		op[i] = 1 << (i - 1)
	}
	for range 3 { // one zero byte: Z⁸
		op = op.then(&op)
	}
	for ; len2 > 0; len2 >>= 1 {
		if len2&1 != 0 {
			c1 = op.apply(c1)
		}
		op = op.then(&op)
	}
	return c1 ^ c2
}

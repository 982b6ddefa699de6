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
	r        io.Reader
	h        hash.Hash32
	ver      int // 1: "LMKSHRD1", 2: "LMKSHRD2"
	width    int // bytes of one element of X
	rows, d  int
	rowBytes int // bytes of one row in the rows section
	done     int // rows returned
	ys       []float64
	yRaw     []byte             // format 1 with targets: y's bytes, read ahead, hashed after X
	keepY    []float64          // format 1 read by Read: where y is decoded at the end
	tailAt   func([]byte) error // format 1 with targets: reads the checksum
	n        int64              // bytes consumed
	raw      []byte
	err      error // sticky
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
// stores y after X, so its targets are read ahead (8 bytes a row, held
// until the stream ends); a Float32 shard interleaves them with the rows.
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
		off := headerBytes(1) + 8*int64(s.rows)*int64(s.d)
		s.yRaw = make([]byte, 8*s.rows)
		if _, err := r.ReadAt(s.yRaw, off); err != nil {
			return nil, fmt.Errorf("shard: %w: targets: %w", ErrFormat, err)
		}
		s.tailAt = func(b []byte) error {
			_, err := r.ReadAt(b, size-4)
			return err
		}
		s.ys = make([]float64, s.rows)
		for i := range s.ys {
			s.ys[i] = math.Float64frombits(binary.LittleEndian.Uint64(s.yRaw[8*i:]))
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
func (s *Stream) BytesRead() int64 { return s.n + int64(len(s.yRaw)) }

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
		if s.ver == 1 && s.ys == nil {
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
	if y != nil && s.ver == 1 {
		copy(y[:k], s.ys[s.done:s.done+k])
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
	if s.ver == 1 {
		if s.yRaw != nil {
			s.h.Write(s.yRaw)
		} else {
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
	}
	sum := s.h.Sum32()
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

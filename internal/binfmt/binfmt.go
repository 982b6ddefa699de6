// Package binfmt is the container and field encoding of Landmark's saved
// models and approximations (the format is documented for users in the
// "Saved models" section of package model's documentation).
//
// A file is
//
//	offset  size  field
//	0       8     magic "LANDMARK"
//	8       2     format version, uint16 little-endian (Version)
//	10      1     length L of the type tag, 1 ≤ L ≤ MaxTag
//	11      L     type tag, ASCII (e.g. "model.KRR", "approx.NystromMap")
//	11+L    8     payload length P, uint64 little-endian
//	19+L    P     payload (fields written by Enc, read by Dec)
//	19+L+P  4     CRC-32C (Castagnoli) of bytes [0, 19+L+P), little-endian
//
// Payload fields are unsigned and signed varints (encoding/binary), IEEE-754
// float64 bit patterns (8 bytes, little-endian), length-prefixed strings,
// float and int slices, and matrices (a kind byte, then rows, columns and
// either the row-major data or, for sparse matrices, the compressed rows; see
// Enc.CSR). Every length read is bounded by the bytes left in the
// payload before anything is allocated, so a corrupt or hostile file costs
// at most its own size in memory and fails with an error wrapping ErrFormat.
package binfmt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// Magic opens every saved file.
const Magic = "LANDMARK"

// Version is the format version this build writes. Version 2 added Falkon's
// Patience and FalkonInfo.BestIteration; version 3 added sparse (CSR)
// matrices (matrix kind 3, written by Enc.CSR); version 4 added the saved
// estimators' samplers, backends and their options (package model reads
// Dec.Version to know which fields a payload holds); version 5 added
// Falkon's Float32Storage; version 6 added Falkon's PrecondPrecision;
// version 7 added Falkon's Factor (and its plan's Factored and Factoring)
// and SVR; version 8 added KRR's and Falkon's ClassWeights (and, later,
// the one-class SVM: a type of its own, which changed no other payload);
// version 9 added the ν of SVM (ν-SVC) and SVR (ν-SVR); version 10 added
// Falkon's NeverCacheKnm.
// Files of versions 2 to 10 are read (MinVersion);
// files of version 1 are refused with ErrVersion rather than misread.
const Version = 10

// MinVersion is the oldest format version this build reads.
const MinVersion = 2

// MaxTag is the longest type tag.
const MaxTag = 64

// ErrFormat is wrapped by every error about a malformed, truncated, corrupted,
// unsupported or unexpected saved file.
var ErrFormat = errors.New("invalid saved file")

// ErrChecksum is wrapped (together with ErrFormat) when the CRC does not match.
var ErrChecksum = errors.New("checksum mismatch")

// ErrVersion is wrapped (together with ErrFormat) when the file's format
// version is not one this build reads (MinVersion to Version).
var ErrVersion = errors.New("unsupported format version")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header returns the bytes before the payload: magic, version, tag and
// payload length.
func header(tag string, plen uint64) ([]byte, error) {
	if len(tag) < 1 || len(tag) > MaxTag {
		return nil, fmt.Errorf("type tag %q: length must be 1…%d", tag, MaxTag)
	}
	buf := make([]byte, 0, 19+len(tag))
	buf = append(buf, Magic...)
	buf = binary.LittleEndian.AppendUint16(buf, Version)
	buf = append(buf, byte(len(tag)))
	buf = append(buf, tag...)
	return binary.LittleEndian.AppendUint64(buf, plen), nil
}

// Write writes one file: the header with tag, the payload and its checksum.
func Write(w io.Writer, tag string, payload []byte) error {
	h, err := header(tag, uint64(len(payload)))
	if err != nil {
		return err
	}
	crc := crc32.Update(crc32.Checksum(h, castagnoli), castagnoli, payload)
	for _, b := range [][]byte{h, payload, binary.LittleEndian.AppendUint32(nil, crc)} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// WriteFunc writes one file whose payload fill writes, without holding the
// payload in memory: fill runs twice, first on an Enc that only counts the
// bytes (for the header's payload length), then on one that writes them to w
// in chunks, computing the checksum on the way. fill must write the same
// fields both times; an error from fill in the first run is returned before
// anything is written.
func WriteFunc(w io.Writer, tag string, fill func(*Enc) error) error {
	// Both runs share one buffer of two chunks: a field appended past one
	// chunk spills at once, so it never grows.
	c := &Enc{count: true, buf: make([]byte, 0, 2*chunk)}
	if err := fill(c); err != nil {
		return err
	}
	c.flush()
	h, err := header(tag, uint64(c.n))
	if err != nil {
		return err
	}
	if _, err := w.Write(h); err != nil {
		return err
	}
	e := &Enc{w: w, crc: crc32.New(castagnoli), buf: c.buf[:0]}
	e.crc.Write(h)
	if err := fill(e); err != nil {
		return err
	}
	e.flush()
	if e.err != nil {
		return e.err
	}
	if e.n != c.n {
		return fmt.Errorf("%s: wrote a payload of %d bytes after counting %d: the encoder is not deterministic", tag, e.n, c.n)
	}
	_, err = w.Write(binary.LittleEndian.AppendUint32(nil, e.crc.Sum32()))
	return err
}

// readHeader reads and checks magic, version and tag, and returns the tag,
// the payload length and the header bytes (for the checksum).
func readHeader(r io.Reader) (tag string, plen uint64, head []byte, err error) {
	head = make([]byte, 11, 19+MaxTag)
	if _, err := io.ReadFull(r, head); err != nil {
		return "", 0, nil, truncated("header", err)
	}
	if string(head[:8]) != Magic {
		return "", 0, nil, fmt.Errorf("%w: not a Landmark file (magic %q, want %q)", ErrFormat, head[:8], Magic)
	}
	if v := binary.LittleEndian.Uint16(head[8:]); v < MinVersion || v > Version {
		return "", 0, nil, fmt.Errorf("%w: %w %d (this build reads versions %d to %d)", ErrFormat, ErrVersion, v, MinVersion, Version)
	}
	tl := int(head[10])
	if tl < 1 || tl > MaxTag {
		return "", 0, nil, fmt.Errorf("%w: type tag length %d, want 1…%d", ErrFormat, tl, MaxTag)
	}
	head = head[:11+tl+8]
	if _, err := io.ReadFull(r, head[11:]); err != nil {
		return "", 0, nil, truncated("header", err)
	}
	tag = string(head[11 : 11+tl])
	for _, c := range []byte(tag) {
		if c < 0x21 || c > 0x7e {
			return "", 0, nil, fmt.Errorf("%w: type tag %q is not printable ASCII", ErrFormat, tag)
		}
	}
	plen = binary.LittleEndian.Uint64(head[11+tl:])
	if plen > math.MaxInt64-4-uint64(len(head)) {
		return "", 0, nil, fmt.Errorf("%w: payload length %d", ErrFormat, plen)
	}
	return tag, plen, head, nil
}

// Read reads one file from r, checks magic, version and checksum, and returns
// its tag and payload. It reads exactly the file's bytes, so several files can
// follow each other in one stream. Memory grows with the bytes actually read,
// never with a length field alone.
func Read(r io.Reader) (tag string, payload []byte, err error) {
	tag, payload, _, err = read(r)
	return tag, payload, err
}

// read is Read, returning the file's format version too.
func read(r io.Reader) (tag string, payload []byte, version int, err error) {
	tag, plen, head, err := readHeader(r)
	if err != nil {
		return "", nil, 0, err
	}
	// ReadAll grows its buffer with the data, so a lying length costs
	// nothing but a "truncated" error.
	body, err := io.ReadAll(io.LimitReader(r, int64(plen)+4))
	if err != nil {
		return "", nil, 0, fmt.Errorf("%w: reading payload: %w", ErrFormat, err)
	}
	if uint64(len(body)) != plen+4 {
		return "", nil, 0, fmt.Errorf("%w: truncated: payload and checksum need %d bytes, got %d", ErrFormat, plen+4, len(body))
	}
	crc := crc32.Update(crc32.Checksum(head, castagnoli), castagnoli, body[:plen])
	if want := binary.LittleEndian.Uint32(body[plen:]); crc != want {
		return "", nil, 0, fmt.Errorf("%w: %w (stored %08x, computed %08x)", ErrFormat, ErrChecksum, want, crc)
	}
	return tag, body[:plen], headVersion(head), nil
}

// headVersion is the format version in a header read by readHeader.
func headVersion(head []byte) int { return int(binary.LittleEndian.Uint16(head[8:])) }

// Open reads the header of one file from r and returns its tag and a Dec
// that decodes the payload as it reads it; Dec.Done then reads and checks the
// checksum. size is the number of bytes r holds from its current position
// (a file's size, a buffer's length), so that a payload length beyond them is
// refused at once and every count the decoder checks against the bytes left
// is bounded by bytes that exist. With size < 0 (unknown, as for a pipe) the
// payload is read and checked first, as Read does. Open reads exactly the
// file's bytes from r.
func Open(r io.Reader, size int64) (tag string, d *Dec, err error) {
	if size < 0 {
		tag, p, v, err := read(r)
		if err != nil {
			return "", nil, err
		}
		d := NewDec(p)
		d.version = v
		return tag, d, nil
	}
	tag, plen, head, err := readHeader(r)
	if err != nil {
		return "", nil, err
	}
	if need := uint64(len(head)) + plen + 4; need > uint64(size) {
		return "", nil, fmt.Errorf("%w: truncated: header, payload and checksum need %d bytes, the input holds %d", ErrFormat, need, size)
	}
	h := crc32.New(castagnoli)
	h.Write(head)
	return tag, &Dec{size: int64(plen), src: io.LimitReader(r, int64(plen)), raw: r, crc: h, version: headVersion(head)}, nil
}

func truncated(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: truncated %s", ErrFormat, what)
	}
	return fmt.Errorf("%w: reading %s: %w", ErrFormat, what, err)
}

// chunk is the most bytes an Enc holds before writing them and the size of a
// streaming Dec's window.
const chunk = 64 << 10

package beamfit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/internal/outfile"
	"gonum.org/v1/gonum/mat"
)

// DefaultAttempts is the number of times a pass is launched before a fit
// gives up, when Falkon.Attempts is 0: the first launch and two re-runs.
const DefaultAttempts = 3

// DefaultRetryWait is the pause before a failed pass is launched again,
// when Falkon.RetryWait is 0.
const DefaultRetryWait = 2 * time.Second

// faultHook, when set (by tests only; nil otherwise), is called by every
// worker before it computes a shard's product, and its error fails the
// shard's bundle as a read or compute error would. In-process runners
// (Prism) see it; workers in other processes do not.
var faultHook func(mode string, shard int) error

// checkpointMagic starts a checkpoint file.
const checkpointMagic = "LMKCKPT1"

// checkpointPrefix starts a checkpoint file's name in the work folder.
const checkpointPrefix = "checkpoint-"

// passKey identifies a pass's result: a SHA-256 over everything the
// workers' sum depends on — the manifest's bytes (n, d, the shards'
// names, sizes and statistics), the centers, the kernel, the outputs and
// their classes, the standardization, the mode and the vector v (as
// bits). Workers, CacheShards, the runner and λ do not change a pass's
// result and are not in it. Shards rewritten under a byte-identical
// manifest are not detected.
type passKey [sha256.Size]byte

// fitDigest hashes what every pass of the fit shares; passKey adds the
// mode and v.
func fitDigest(manifest []byte, centers *mat.Dense, g *passFn) ([]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "landmark beamfit pass v2\n%d\n", len(manifest))
	h.Write(manifest)
	head, err := json.Marshal(struct {
		Kernel    any
		T         int
		Classes   []float64
		Mean, Std []float64
		Files     []string
		Rows      []int
	}{g.Kernel, g.T, g.Classes, g.Mean, g.Std, g.Files, g.Rows})
	if err != nil {
		return nil, err
	}
	h.Write(head)
	r, c := centers.Dims()
	writeFloats(h, []float64{float64(r), float64(c)})
	for i := range r {
		writeFloats(h, centers.RawRowView(i))
	}
	return h.Sum(nil), nil
}

func (r *falkonRun) passKey(mode string, v []float64) passKey {
	h := sha256.New()
	h.Write(r.digest)
	fmt.Fprintf(h, "%s\n%d\n", mode, len(v))
	writeFloats(h, v)
	var k passKey
	copy(k[:], h.Sum(nil))
	return k
}

func writeFloats(w interface{ Write([]byte) (int, error) }, v []float64) {
	var b [8]byte
	for _, x := range v {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		w.Write(b[:])
	}
}

// checkpointPath is where the pass with key k keeps its result.
func (r *falkonRun) checkpointPath(mode string, k passKey) string {
	return joinPath(r.work, checkpointPrefix+mode+"-"+hex.EncodeToString(k[:16])+".bin")
}

// listCheckpoints records the checkpoint files already in the work folder
// (a fit stopped earlier with the same WorkDir).
func (r *falkonRun) listCheckpoints(ctx context.Context) error {
	r.saved = map[string]bool{}
	if r.f.WorkDir == "" {
		return nil // a new temporary folder: nothing to resume
	}
	fs, err := newFS(ctx, r.work)
	if err != nil {
		return fmt.Errorf("beamfit: work folder: %w", err)
	}
	defer fs.Close()
	names, err := fs.List(ctx, joinPath(r.work, checkpointPrefix+"*"))
	if err != nil {
		return fmt.Errorf("beamfit: work folder %s: %w", r.work, err)
	}
	for _, n := range names {
		r.saved[n] = true
	}
	return nil
}

// encodeCheckpoint is the file: magic, key, count, the sum (float64 bits,
// little-endian) and a CRC-32 of all that precedes it.
func encodeCheckpoint(k passKey, sum []float64) []byte {
	var b bytes.Buffer
	b.WriteString(checkpointMagic)
	b.Write(k[:])
	binary.Write(&b, binary.LittleEndian, uint64(len(sum)))
	writeFloats(&b, sum)
	binary.Write(&b, binary.LittleEndian, crc32.ChecksumIEEE(b.Bytes()))
	return b.Bytes()
}

// decodeCheckpoint checks and decodes a checkpoint file of key k and n
// values.
func decodeCheckpoint(b []byte, k passKey, n int) ([]float64, error) {
	head := len(checkpointMagic) + len(k) + 8
	if len(b) != head+8*n+4 || string(b[:len(checkpointMagic)]) != checkpointMagic {
		return nil, fmt.Errorf("%w: checkpoint of %d bytes, want %d", shard.ErrFormat, len(b), head+8*n+4)
	}
	if crc32.ChecksumIEEE(b[:len(b)-4]) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, fmt.Errorf("%w: checkpoint checksum mismatch", shard.ErrFormat)
	}
	if !bytes.Equal(b[len(checkpointMagic):len(checkpointMagic)+len(k)], k[:]) ||
		binary.LittleEndian.Uint64(b[head-8:]) != uint64(n) {
		return nil, fmt.Errorf("%w: checkpoint is for another pass", shard.ErrFormat)
	}
	sum := make([]float64, n)
	for i := range sum {
		sum[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[head+8*i:]))
	}
	return sum, nil
}

// resume returns the saved result of the pass with key k, or nil when
// there is none (or it is unreadable, which is logged: the pass is then
// launched again, giving the same result).
func (r *falkonRun) resume(ctx context.Context, mode string, k passKey, n int) []float64 {
	p := r.checkpointPath(mode, k)
	if !r.saved[p] {
		return nil
	}
	b, err := readFile(ctx, p)
	if err == nil {
		var sum []float64
		if sum, err = decodeCheckpoint(b, k, n); err == nil {
			return sum
		}
	}
	r.logf("beamfit: checkpoint %s unreadable, launching the pass again: %v", p, err)
	return nil
}

// saveCheckpoint writes a pass's result to the work folder, whole or not
// at all: a local file through a temporary file and a rename
// (internal/outfile), an object (gs://, s3://) by one upload that is
// published when it completes.
func (r *falkonRun) saveCheckpoint(ctx context.Context, mode string, k passKey, sum []float64) error {
	p := r.checkpointPath(mode, k)
	b := encodeCheckpoint(k, sum)
	var err error
	if strings.Contains(p, "://") {
		err = writeFile(ctx, p, b)
	} else {
		err = outfile.WriteBytes(p, b)
	}
	if err != nil {
		return fmt.Errorf("beamfit: checkpoint: %w", err)
	}
	r.saved[p] = true
	return nil
}

// launch runs one pass, re-running a failed launch up to the fit's
// attempts with a log line for each failure; it returns the sum and the
// number of launches made.
func (r *falkonRun) launch(ctx context.Context, g *passFn, out string, pass int) ([]float64, int, error) {
	for a := 1; ; a++ {
		sum, err := runPass(ctx, r.run, g, len(r.man.Shards), out)
		if err == nil {
			return sum, a, nil
		}
		if ctx.Err() != nil {
			return nil, a, errors.Join(err, ctx.Err())
		}
		if a >= r.attempts {
			return nil, a, fmt.Errorf("beamfit: pass %d (%s) failed %d times, giving up: %w", pass, g.Mode, a, err)
		}
		r.logf("beamfit: pass %d (%s) failed (attempt %d of %d), re-running it in %v: %v", pass, g.Mode, a, r.attempts, r.retryWait, err)
		select {
		case <-ctx.Done():
			return nil, a, errors.Join(err, ctx.Err())
		case <-time.After(r.retryWait):
		}
	}
}

func (r *falkonRun) logf(format string, args ...any) {
	if r.f.Logf != nil {
		r.f.Logf(format, args...)
		return
	}
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

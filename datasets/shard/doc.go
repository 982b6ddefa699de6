// Package shard is Landmark's on-storage format for data too large for one
// machine: numbered binary shards of rows plus a JSON manifest. It lives in
// the core module and has no dependency on Apache Beam: `landmark data
// shard` writes shards with it, and package beamfit (module
// github.com/landmark-ml/landmark/distributed) reads the same format inside
// Beam pipelines through Beam's filesystems (local folders, gs://, …).
//
// Write encodes one shard's rows and targets, Read decodes and checks one
// (its size, shape and checksum), and Manifest describes the whole set (n,
// d, task, classes, per-column mean and standard deviation, one Entry per
// shard, and what the source file named: features, target, text labels'
// classes, a CSV's column layout). docs/cluster.md shows the commands end
// to end.
//
// A float64 shard file (manifest format "landmark-shards/1") is
//
//	"LMKSHRD1" | rows uint64 | d uint64 | X row-major float64 | y float64 | CRC-32 (IEEE) uint32
//
// and a float32 shard (WriteAs with Float32, Options.Type; manifest format
// "landmark-shards/2" with "type": "float32") is
//
//	"LMKSHRD2" | rows uint64 | d uint64 | width uint64 (4) | rows × (x_i float32 ×d | y_i float64) | CRC-32 (IEEE) uint32
//
// all little-endian, the checksum covering every byte before it. Float32
// shards halve the bytes a pass reads; X is read back as float32(x)
// widened to float64, the targets unrounded. Their rows carry their
// targets, so a reader streams them in blocks from any io.Reader; a
// float64 shard's targets follow X, so Stream reads their section beside
// X's, in step, and combines the two sections' CRC-32s when a pass needs
// them. Stream decodes a shard block by block and
// checks the checksum as it reads: the read that completes a shard fails
// with ErrChecksum when the bytes do not match. Binary
// rather than Parquet/Arrow: the passes read every row as float64 anyway,
// a fixed-width layout decodes at memory speed without a dependency (the
// maintained Arrow Go module would pull a second large tree into every
// worker), and row i sits at a computable offset.
package shard

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
// shard). docs/cluster.md shows the commands end to end.
//
// A shard file is
//
//	"LMKSHRD1" | rows uint64 | d uint64 | X row-major float64 | y float64 | CRC-32 (IEEE) uint32
//
// all little-endian, the checksum covering every byte before it. Binary
// rather than Parquet/Arrow: the passes read every row as float64 anyway,
// a fixed-width layout decodes at memory speed without a dependency (the
// maintained Arrow Go module would pull a second large tree into every
// worker), and row i sits at a computable offset.
package shard

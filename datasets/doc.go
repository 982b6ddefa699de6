// Package datasets gets data into Landmark's estimators: it reads and writes
// LIBSVM/svmlight and CSV files, scales features, splits data for testing
// and cross-validation, generates synthetic problems, and ships small real
// datasets inside the binary.
//
// A typical program calls Load or LoadSplit for a bundled set, or ReadFile
// for a file of its own (ReadLIBSVMSparseFile to keep a sparse file sparse:
// its CSR matrix goes straight into any estimator of package model), fits a
// Standardizer on the training rows, and splits with Split or
// StratifiedSplit, or draws folds with KFold. Every random choice takes an
// explicit *rand.Rand; every reader names the file and line of malformed
// input.
//
// # Files
//
// ReadFile reads a LIBSVM/svmlight file ("label idx:val ...", 1-based
// strictly ascending indices, zeros omitted, '#' comments, svmlight's qid
// ignored; Joachims, "Making large-scale SVM learning practical", 1999, and
// the LIBSVM README of Chang & Lin, 2011) or a CSV file (optional header,
// any delimiter, target column chosen by name or index, by default the last)
// into a dense Dataset. The format comes from the extension (.libsvm, .svm,
// .txt, .t → LIBSVM; .csv, .tsv → CSV) or, failing that, from the content;
// gzip and bzip2 compression are recognised by their magic bytes. Malformed
// input — a garbled, descending or repeated index, text or NaN/Inf in a value
// or label, a ragged CSV record — is an error of type *ParseError naming the
// file and line; errors.Is(err, ErrFormat) and errors.Is(err, ErrInput) hold.
// OpenInput opens a file or a stream once ("-" is standard input; pipes,
// FIFOs and /dev/fd/N are read as they come): the bytes looked at to tell the
// format are read again, a UTF-8 byte order mark is skipped, a compressed
// stream cut short is ErrTruncated, and a FIFO's open and a stream's blocked
// read end with the context. A CSV header is guessed only when no field of the
// first line is a number (ReadOptions.Notify hears the decision), so a
// headerless first row holding NA is an error at line 1, never a lost row.
// ReadTestFile reads a test file with the training file's dimension (LIBSVM
// test files often stop short of the largest index). WriteFile, WriteLIBSVM
// and WriteCSV write numbers in their shortest exact form, so reading back
// reproduces the data bit for bit.
//
// # Labels and scaling
//
// ClassCounts, GuessTask and CheckClasses inspect labels; PlusMinus and
// OneVsRest map them to ±1 (the larger label positive, as model.Labels does).
// Standardizer (mean and population standard deviation; a constant column is
// only centred), MinMax (svm-scale's linear map to [−1, 1] or any range) and
// TargetScaler (for regression targets, with Inverse for predictions) are fitted
// on training data and applied unchanged to test data.
//
// # Splits
//
// Split and StratifiedSplit draw a train/test partition; KFold and
// StratifiedKFold draw cross-validation folds. All return ascending row
// indices, take an explicit *rand.Rand (math/rand/v2), and give the same
// result for the same generator state. Dataset.Subset copies rows by index.
//
// # Synthetic data
//
// Clusters draws Gaussian clusters of geometrically decreasing size, the case
// where uniform landmark sampling misses whole clusters and ridge-leverage
// sampling (Musco & Musco, NIPS 2017, §1 and §5) or clustered landmarks
// (Pourkamali-Anaraki & Becker, JMLR) do not. Smooth is a noisy smooth
// regression function and Moons a two-class problem that needs a nonlinear
// kernel. SyntheticText draws a news20-shaped sparse set (d = 1,355,191,
// about 80 non-zeros a row, Zipf-distributed columns, log-tf values, unit
// rows, labels from class topics) in memory proportional to its non-zeros
// plus one 8·d-byte Zipf table.
//
// # Bundled data
//
// Bundled lists the sets compiled into the binary (gzip-compressed, 1.3 MB):
// cadata (20,640×8 regression), cpusmall (8,192×12 regression), heart_scale
// (270×13 binary), pendigits and pendigits.test (7,494 + 3,498 × 16, ten
// classes), satimage and satimage.test (4,435 + 2,000 × 36, six classes) and
// the two wine-quality sets (1,599 and 4,898 × 11, regression). Load returns
// one by name; LoadSplit returns an official train/test pair. Their sources
// are listed in Info.Citation. SharedPath finds the larger sets the tests and
// benchmarks read from a shared folder ($LANDMARK_SHARED_DATA).
package datasets

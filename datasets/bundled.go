package datasets

import (
	"context"
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
)

// The bundled files are exact copies of the shared LIBSVM/UCI files listed in
// ../shared/datasets/MANIFEST.md, recompressed with gzip -9n (1.32 MB in all).
// bzip2 would be 37% smaller, but Go's bzip2 decoder needs ~0.6 s for cadata
// where gzip needs ~0.03 s.
//
//go:embed data/*.gz
var bundledFS embed.FS

// Info describes a bundled dataset.
type Info struct {
	// Name is what Load accepts.
	Name string
	// N and D are the number of rows and features.
	N, D int
	// Task is what Y holds.
	Task Task
	// Classes is the number of distinct labels of a classification set (0 for regression).
	Classes int
	// Train names the training part when this is an official test part, Test
	// the test part when this is an official training part ("" otherwise).
	Train, Test string
	// Target describes Y (its name or range).
	Target string
	// Citation is where the data come from.
	Citation string

	file string // embedded file under data/
}

// bundled lists the embedded sets, sorted by name.
var bundled = []Info{
	{Name: "cadata", N: 20640, D: 8, Task: Regression, Target: "median house value (14,999–500,001)",
		Citation: "StatLib California housing; Pace & Barry (1997), Sparse spatial autoregressions, Stat. & Prob. Letters 33",
		file:     "cadata.libsvm.gz"},
	{Name: "cpusmall", N: 8192, D: 12, Task: Regression, Target: "CPU time in user mode, % (0–99)",
		Citation: "Delve comp-activ (cpusmall), via the LIBSVM data page",
		file:     "cpusmall.libsvm.gz"},
	{Name: "heart_scale", N: 270, D: 13, Task: Binary, Classes: 2, Target: "heart disease ±1",
		Citation: "Statlog heart (UCI), scaled to [−1, 1]; LIBSVM's example data",
		file:     "heart_scale.libsvm.gz"},
	{Name: "pendigits", N: 7494, D: 16, Task: Multiclass, Classes: 10, Test: "pendigits.test", Target: "digit 0–9",
		Citation: "UCI pen-based recognition of handwritten digits; Alimoglu & Alpaydin (1996)",
		file:     "pendigits.train.libsvm.gz"},
	{Name: "pendigits.test", N: 3498, D: 16, Task: Multiclass, Classes: 10, Train: "pendigits", Target: "digit 0–9",
		Citation: "UCI pen-based recognition of handwritten digits; Alimoglu & Alpaydin (1996)",
		file:     "pendigits.test.libsvm.gz"},
	{Name: "satimage", N: 4435, D: 36, Task: Multiclass, Classes: 6, Test: "satimage.test", Target: "land cover class 1,2,3,4,5,7",
		Citation: "UCI Statlog (Landsat satellite)",
		file:     "satimage.train.libsvm.gz"},
	{Name: "satimage.test", N: 2000, D: 36, Task: Multiclass, Classes: 6, Train: "satimage", Target: "land cover class 1,2,3,4,5,7",
		Citation: "UCI Statlog (Landsat satellite)",
		file:     "satimage.test.libsvm.gz"},
	{Name: "winequality-red", N: 1599, D: 11, Task: Regression, Target: "Quality (3–8)",
		Citation: "UCI wine quality; Cortez, Cerdeira, Almeida, Matos & Reis (2009), Decision Support Systems 47",
		file:     "winequality-red.csv.gz"},
	{Name: "winequality-white", N: 4898, D: 11, Task: Regression, Target: "Quality (3–9)",
		Citation: "UCI wine quality; Cortez, Cerdeira, Almeida, Matos & Reis (2009), Decision Support Systems 47",
		file:     "winequality-white.csv.gz"},
}

// Bundled returns the datasets compiled into the binary, sorted by name. Sets
// with an official train/test split appear twice: NAME is the training part
// and NAME.test the test part (see LoadSplit).
func Bundled() []Info {
	return slices.Clone(bundled)
}

// Lookup returns the Info of a bundled dataset.
func Lookup(name string) (Info, bool) {
	i, ok := slices.BinarySearchFunc(bundled, name, func(in Info, n string) int { return strings.Compare(in.Name, n) })
	if !ok {
		return Info{}, false
	}
	return bundled[i], true
}

func bundledNames() string {
	names := make([]string, len(bundled))
	for i, b := range bundled {
		names[i] = b.Name
	}
	return strings.Join(names, ", ")
}

// Load decompresses and parses a bundled dataset (a fresh copy each call).
// Test parts are read with their training part's dimension.
func Load(name string) (*Dataset, error) {
	info, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("datasets: %w: no bundled dataset %q (have %s)", ErrInput, name, bundledNames())
	}
	f, err := bundledFS.Open(path.Join("data", info.file))
	if err != nil {
		return nil, fmt.Errorf("datasets: bundled %s: %w", name, err)
	}
	defer f.Close()
	opt := ReadOptions{Dim: info.D, Format: LIBSVM}
	if strings.Contains(info.file, ".csv") {
		opt = ReadOptions{Format: CSV}
	}
	d, err := read(context.Background(), f, opt)
	if err != nil {
		return nil, withFile(err, "bundled "+info.file)
	}
	if d.Len() != info.N || d.Dim() != info.D {
		return nil, fmt.Errorf("bundled %s: read %d×%d, expected %d×%d", name, d.Len(), d.Dim(), info.N, info.D)
	}
	d.Name = name
	return d, nil
}

// LoadSplit returns a bundled set's official training and test parts; name
// may be either part's name. It errors for sets without an official split
// (use Split or StratifiedSplit on them).
func LoadSplit(name string) (train, test *Dataset, err error) {
	info, ok := Lookup(name)
	if !ok {
		return nil, nil, fmt.Errorf("datasets: %w: no bundled dataset %q (have %s)", ErrInput, name, bundledNames())
	}
	if info.Train != "" {
		info, _ = Lookup(info.Train)
	}
	if info.Test == "" {
		return nil, nil, fmt.Errorf("datasets: %w: bundled %s has no official test part; split it with Split or StratifiedSplit", ErrInput, name)
	}
	if train, err = Load(info.Name); err != nil {
		return nil, nil, err
	}
	if test, err = Load(info.Test); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

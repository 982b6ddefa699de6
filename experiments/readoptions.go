package experiments

import "github.com/landmark-ml/landmark/datasets"

// ReadOptions are the datasets.ReadOptions of the dataset block's reading
// keys: format, target, header (auto, yes or no), delim (one character
// other than a quote or newline, or tab) and zero_based. The command
// line's --header, --delim and --zero-based are read by the same rules.
func (d DatasetSpec) ReadOptions() (datasets.ReadOptions, error) { return d.readOptions() }

package experiments

import "github.com/landmark-ml/landmark/datasets"

// ReadOptions are the datasets.ReadOptions of the dataset block's CSV keys:
// format, target, header (auto, yes or no) and delim (one character other
// than a quote or newline, or tab). The command line's --header and --delim
// are read by the same rules.
func (d DatasetSpec) ReadOptions() (datasets.ReadOptions, error) { return d.readOptions() }

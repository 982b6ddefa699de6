package experiments

import "github.com/landmark-ml/landmark/datasets"

// ReadOptions are the datasets.ReadOptions of the dataset block's reading
// keys: format, target, header (auto, yes or no), delim (one character
// other than a quote or newline, or tab), drop and zero_based. The command
// line's --header, --delim, --drop and --zero-based are read by the same rules.
func (d DatasetSpec) ReadOptions() (datasets.ReadOptions, error) { return d.readOptions() }

// float32Reason is what a training file's refusal of a value beyond
// float32's range says rounds X (datasets.ReadOptions.Float32Reason):
// falkon's float32 passes (over float64 X: f32Passes) or float32_storage
// (f32). The dense read with f32 reads X into float32 and says so itself
// (""); sparse reads keep float64 values, rounded when the rows are held
// dense (storage dense or auto, or a scaling).
func (r *runner) float32Reason(sparse bool) string {
	switch {
	case r.f32 && sparse:
		return "float32_storage holds dense X in float32"
	case r.f32:
		return ""
	case r.f32Passes:
		return "falkon's float32 passes round dense X to float32"
	}
	return ""
}

package golearn

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/model"
	"github.com/sjwhitworth/golearn/base"
)

// Instances converts a Landmark dataset into golearn DenseInstances: one
// FloatAttribute per feature (named by d.Features, or x1…xd), and a class
// attribute named by d.Target (or "y") that is categorical for
// classification — its values are the distinct labels, ascending, written in
// Go's shortest float format ("-1", "1", "7"), or the class names of text
// labels (d.Classes, in their order: a CSV read with
// datasets.ReadOptions.TextLabels) — and float for regression.
func Instances(d *datasets.Dataset, task model.Task) (*base.DenseInstances, error) {
	if d == nil {
		return nil, fmt.Errorf("golearn: %w: nil dataset", model.ErrInput)
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("golearn: %w", err)
	}
	var classify bool
	switch task {
	case "", model.Regression:
	case model.Classification, "binary", "multiclass":
		classify = true
	default:
		return nil, fmt.Errorf("golearn: %w: unknown task %q", model.ErrInput, task)
	}
	n, dim := d.X.Dims()
	inst := base.NewDenseInstances()
	specs := make([]base.AttributeSpec, dim)
	for j := range dim {
		name := "x" + strconv.Itoa(j+1)
		if d.Features != nil {
			name = d.Features[j]
		}
		specs[j] = inst.AddAttribute(base.NewFloatAttribute(name))
	}
	target := d.Target
	if target == "" {
		target = "y"
	}
	var class base.Attribute
	var labels []float64
	switch {
	case classify && d.Classes != nil:
		// Text labels: Y holds class indices into d.Classes, the values.
		c := base.NewCategoricalAttribute()
		c.SetName(target)
		for _, name := range d.Classes {
			c.GetSysValFromString(name)
		}
		labels = make([]float64, len(d.Classes))
		for k := range labels {
			labels[k] = float64(k)
		}
		for i, v := range d.Y {
			if k := int(v); float64(k) != v || k < 0 || k >= len(d.Classes) {
				return nil, fmt.Errorf("golearn: %w: row %d has label %g, not the index of one of the %d class names", model.ErrInput, i, v, len(d.Classes))
			}
		}
		class = c
	case classify:
		c := base.NewCategoricalAttribute()
		c.SetName(target)
		labels = slices.Clone(d.Y)
		slices.Sort(labels)
		labels = slices.Compact(labels)
		for _, l := range labels {
			c.GetSysValFromString(formatLabel(l))
		}
		class = c
	case d.Classes != nil:
		return nil, fmt.Errorf("golearn: %w: the labels are text (classes %q), a regression needs numbers", model.ErrInput, d.Classes)
	default:
		class = base.NewFloatAttribute(target)
	}
	cs := inst.AddAttribute(class)
	if err := inst.AddClassAttribute(class); err != nil {
		return nil, fmt.Errorf("golearn: %w", err)
	}
	if err := inst.Extend(n); err != nil {
		return nil, fmt.Errorf("golearn: %w", err)
	}
	for i := range n {
		for j, s := range specs {
			inst.Set(s, i, base.PackFloatToBytes(d.X.At(i, j)))
		}
		if classify {
			k, _ := slices.BinarySearch(labels, d.Y[i])
			inst.Set(cs, i, base.PackU64ToBytes(uint64(k)))
		} else {
			inst.Set(cs, i, base.PackFloatToBytes(d.Y[i]))
		}
	}
	return inst, nil
}

// formatLabel writes a class label in the shortest form that reads back.
func formatLabel(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

package experiments

import (
	"errors"
	"fmt"
	"math"

	"gopkg.in/yaml.v3"
)

// maxRangeValues bounds the values one grid range gives: a step or count
// typed wrong should not make a grid of millions of points.
const maxRangeValues = 1000

// UnmarshalYAML reads a grid: each axis a list of numbers, or a range
// written as a mapping of one key, whose values are computed here:
//
//	c: {log2: [-5, 15, 2]}          # 2^-5, 2^-3, …, 2^15: LIBSVM grid.py's -log2c begin,end,step
//	lambda: {logspace: [-9, -3, 7]} # 10^-9, 10^-8, …, 10^-3: numpy.logspace(start, stop, num)
//	sigma: {linspace: [1, 4, 4]}    # 1, 2, 3, 4: numpy.linspace(start, stop, num)
//
// log2 runs from begin towards end by step, end included when a step
// lands on it (grid.py's rule); logspace and linspace give num values,
// start and stop included. Integral exponents give the float64 nearest
// the power (2^-3 is 0.125, 10^-9 is 1e-9, where numpy.logspace gives
// 9.999999999999999e-10); others math.Pow. Encode writes the values.
func (g *Grid) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		var m map[string][]float64
		return n.Decode(&m) // yaml's own type error
	}
	out := make(Grid, len(n.Content)/2)
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		if v.Kind != yaml.MappingNode {
			var vals []float64
			if err := v.Decode(&vals); err != nil {
				return err
			}
			out[k.Value] = vals
			continue
		}
		vals, err := gridRange(v)
		if err != nil {
			return fmt.Errorf("line %d: grid.%s: %w", v.Line, k.Value, err)
		}
		out[k.Value] = vals
	}
	*g = out
	return nil
}

// gridRange computes the values of a range mapping (UnmarshalYAML).
func gridRange(n *yaml.Node) ([]float64, error) {
	const forms = "{log2: [begin, end, step]}, {logspace: [start, stop, num]} or {linspace: [start, stop, num]}"
	if len(n.Content) != 2 {
		return nil, fmt.Errorf("a range is one of %s", forms)
	}
	kind := n.Content[0].Value
	var a [3]float64
	var args []float64
	if err := n.Content[1].Decode(&args); err != nil || len(args) != 3 {
		return nil, fmt.Errorf("%s wants three numbers: %s", kind, forms)
	}
	copy(a[:], args)
	for _, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s %v: want finite numbers", kind, args)
		}
	}
	switch kind {
	case "log2":
		begin, end, step := a[0], a[1], a[2]
		if step == 0 || (end-begin)/step < 0 {
			return nil, fmt.Errorf("log2 %v: the step %g does not go from %g towards %g", args, step, begin, end)
		}
		count := int(math.Floor((end-begin)/step+1e-9)) + 1
		if count > maxRangeValues {
			return nil, fmt.Errorf("log2 %v gives %d values, over %d", args, count, maxRangeValues)
		}
		vals := make([]float64, count)
		for i := range vals {
			vals[i] = pow(2, begin+float64(i)*step)
		}
		return vals, nil
	case "logspace", "linspace":
		start, stop := a[0], a[1]
		num := int(a[2])
		if float64(num) != a[2] || num < 1 || num > maxRangeValues {
			return nil, fmt.Errorf("%s %v: num = %g, want a whole number from 1 to %d", kind, args, a[2], maxRangeValues)
		}
		vals := make([]float64, num)
		for i := range vals {
			x := stop
			if i < num-1 || num == 1 {
				// numpy: start + i·step, the last value stop itself.
				x = start + float64(i)*((stop-start)/float64(max(num-1, 1)))
			}
			vals[i] = x
			if kind == "logspace" {
				vals[i] = pow(10, x)
			}
		}
		return vals, nil
	}
	return nil, errors.New("unknown range " + fmt.Sprintf("%q", kind) + ": want " + forms)
}

// pow is base^e, exact for integral e (math.Pow10 for base 10; 2^e by
// Ldexp).
func pow(base, e float64) float64 {
	if e == math.Trunc(e) && math.Abs(e) < 1000 {
		if base == 10 {
			return math.Pow10(int(e))
		}
		if base == 2 {
			return math.Ldexp(1, int(e))
		}
	}
	return math.Pow(base, e)
}

package experiments

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// logAxes are grid axes plotted on a logarithmic scale.
var logAxes = []string{"alpha", "c", "gamma", "lambda", "sigma"}

// sizeAxes are grid axes against which fit time is plotted too.
var sizeAxes = []string{"clusters", "m", "rank"}

// palette colours the series of a plot.
var palette = []color.Color{
	color.RGBA{R: 31, G: 119, B: 180, A: 255},
	color.RGBA{R: 255, G: 127, B: 14, A: 255},
	color.RGBA{R: 44, G: 160, B: 44, A: 255},
	color.RGBA{R: 214, G: 39, B: 40, A: 255},
	color.RGBA{R: 148, G: 103, B: 189, A: 255},
	color.RGBA{R: 140, G: 86, B: 75, A: 255},
}

// series is one line of a plot.
type series struct {
	label string
	xy    plotter.XYs
	err   []float64 // y error bars (nil: none)
}

// writePlots draws, for each grid axis with two or more values, the CV
// metric against it (error bars: ±1 std over folds), one line per value of
// another multi-valued axis (up to six) and every other axis held at the best
// point's value; for size axes (m, clusters, rank) also fit time against it.
// Each plot is written as PNG and SVG.
func writePlots(r *Result) error {
	if r.Best < 0 {
		return nil
	}
	if r.Spec.Approximation != nil {
		return writeApproxPlots(r)
	}
	best := r.Points[r.Best].Params
	axes := r.Spec.Grid.Axes()
	for _, a := range axes {
		if len(r.Spec.Grid[a]) < 2 {
			continue
		}
		by := ""
		for _, b := range axes {
			if b != a && len(r.Spec.Grid[b]) >= 2 && len(r.Spec.Grid[b]) <= len(palette) {
				by = b
				break
			}
		}
		metricSeries := r.slice(a, by, best, func(p PointResult) (float64, float64) {
			s, _ := p.Metric(r.Metric)
			return s.Mean, s.Std
		})
		if err := r.savePlot(fmt.Sprintf("cv_%s_vs_%s", r.Metric, a), fmt.Sprintf("CV %s vs %s", r.Metric, a), a, "CV "+r.Metric, metricSeries); err != nil {
			return err
		}
		if slices.Contains(sizeAxes, a) {
			timeSeries := r.slice(a, by, best, func(p PointResult) (float64, float64) { return p.FitSeconds, math.NaN() })
			if err := r.savePlot("fit_seconds_vs_"+a, "fit time vs "+a, a, "fit time per fold (s)", timeSeries); err != nil {
				return err
			}
		}
	}
	return nil
}

// slice collects the points that agree with best on every axis except a and
// by, one series per value of by, x = value of a, sorted by x.
func (r *Result) slice(a, by string, best Point, y func(PointResult) (float64, float64)) []series {
	var out []series
	byVals := []float64{math.NaN()}
	if by != "" {
		byVals = r.Spec.Grid[by]
	}
	for _, bv := range byVals {
		var s series
		if by != "" {
			s.label = fmt.Sprintf("%s=%s", by, fmtFloat(bv))
		}
		for _, p := range r.Points {
			if p.Error != "" || !agrees(p.Params, best, a, by) {
				continue
			}
			if by != "" {
				if v, _ := p.Params.Value(by); v != bv {
					continue
				}
			}
			x, _ := p.Params.Value(a)
			m, e := y(p)
			if math.IsNaN(m) {
				continue
			}
			s.xy = append(s.xy, plotter.XY{X: x, Y: m})
			if !math.IsNaN(e) {
				s.err = append(s.err, e)
			}
		}
		if len(s.err) != len(s.xy) {
			s.err = nil
		}
		idx := make([]int, len(s.xy))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(i, j int) int {
			switch {
			case s.xy[i].X < s.xy[j].X:
				return -1
			case s.xy[i].X > s.xy[j].X:
				return 1
			}
			return 0
		})
		sorted := series{label: s.label}
		for _, i := range idx {
			sorted.xy = append(sorted.xy, s.xy[i])
			if s.err != nil {
				sorted.err = append(sorted.err, s.err[i])
			}
		}
		if len(sorted.xy) > 0 {
			out = append(out, sorted)
		}
	}
	return out
}

// agrees reports whether p equals best on every axis but skip1 and skip2.
func agrees(p, best Point, skip1, skip2 string) bool {
	for _, q := range p {
		if q.Name == skip1 || q.Name == skip2 {
			continue
		}
		if v, _ := best.Value(q.Name); v != q.Value {
			return false
		}
	}
	return true
}

// errBars adapts a series to plotter.YErrorer.
type errBars struct {
	plotter.XYs
	e []float64
}

func (b errBars) YError(i int) (float64, float64) { return b.e[i], b.e[i] }

func (r *Result) savePlot(file, title, xlabel, ylabel string, ss []series) error {
	if len(ss) == 0 {
		return nil
	}
	p := plot.New()
	p.Title.Text = r.Spec.Name + ": " + title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	logX := slices.Contains(logAxes, xlabel)
	for _, s := range ss {
		for _, xy := range s.xy {
			if xy.X <= 0 {
				logX = false
			}
		}
	}
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = decades{}
	}
	logY := strings.HasPrefix(ylabel, "relative")
	for _, s := range ss {
		for i, xy := range s.xy {
			if xy.Y <= 0 || (s.err != nil && xy.Y-s.err[i] <= 0) {
				logY = false
			}
		}
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = decades{}
	}
	for i, s := range ss {
		c := palette[i%len(palette)]
		ln, pts, err := plotter.NewLinePoints(s.xy)
		if err != nil {
			return err
		}
		ln.Color = c
		if i >= len(palette) {
			ln.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		pts.Color = c
		pts.Shape = draw.CircleGlyph{}
		p.Add(ln, pts)
		if s.err != nil {
			eb, err := plotter.NewYErrorBars(errBars{s.xy, s.err})
			if err != nil {
				return err
			}
			eb.Color = c
			p.Add(eb)
		}
		if s.label != "" {
			p.Legend.Add(s.label, ln, pts)
		}
	}
	p.Legend.Top = true
	for _, format := range []string{"png", "svg"} {
		w, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, format)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if _, err := w.WriteTo(&b); err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(r.Out, file+"."+format), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// writeApproxPlots draws, for each measure, the error against m, against
// build time and against memory, one line per method (other axes at their
// first value).
func writeApproxPlots(r *Result) error {
	a := r.Spec.Approximation
	first := Point{}
	for _, ax := range r.Spec.Grid.Axes() {
		if ax != "m" {
			first = append(first, Param{Name: ax, Value: r.Spec.Grid[ax][0]})
		}
	}
	xs := []struct {
		file, label string
		x           func(PointResult) float64
	}{
		{"m", "m", func(p PointResult) float64 { v, _ := p.Params.Value("m"); return v }},
		{"time", "build time (s)", func(p PointResult) float64 { return p.FitSeconds }},
		{"memory", "memory of K̃ (MiB)", func(p PointResult) float64 { return float64(p.Bytes) / (1 << 20) }},
	}
	for _, meas := range a.measures() {
		for _, xd := range xs {
			var ss []series
			for _, m := range a.Methods {
				s := series{label: m}
				for _, p := range r.Points {
					if p.Method != m || p.Error != "" || !agrees(p.Params[1:], first, "m", "") {
						continue
					}
					sm, _ := p.Metric(meas)
					s.xy = append(s.xy, plotter.XY{X: xd.x(p), Y: sm.Mean})
					s.err = append(s.err, sm.Std)
				}
				if len(s.xy) > 0 {
					ss = append(ss, s)
				}
			}
			if xd.file == "m" && len(r.Spec.Grid["m"]) < 2 {
				continue
			}
			if err := r.savePlot(meas+"_error_vs_"+xd.file, meas+" error vs "+xd.file, xd.label, "relative "+meas+" error", ss); err != nil {
				return err
			}
		}
	}
	return nil
}

// decades labels the powers of ten of a log axis (1e-06, 0.001, 1, 100…),
// with unlabelled minor ticks at 2…9 times them.
type decades struct{}

// Ticks implements plot.Ticker.
func (decades) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		p := math.Pow10(e)
		if p >= lo && p <= hi {
			ts = append(ts, plot.Tick{Value: p, Label: strconv.FormatFloat(p, 'g', -1, 64)})
		}
		for k := 2; k <= 9; k++ {
			if v := float64(k) * p; v >= lo && v <= hi {
				t := plot.Tick{Value: v}
				if (k == 2 || k == 5) && hi/lo < 1000 {
					// Few decades: label 2× and 5× too.
					t.Label = strconv.FormatFloat(v, 'g', 3, 64)
				}
				ts = append(ts, t)
			}
		}
	}
	if len(ts) > 0 && !slices.ContainsFunc(ts, func(t plot.Tick) bool { return t.Label != "" }) {
		// Less than a decade: label the ends.
		ts = append(ts, plot.Tick{Value: lo, Label: strconv.FormatFloat(lo, 'g', 3, 64)}, plot.Tick{Value: hi, Label: strconv.FormatFloat(hi, 'g', 3, 64)})
	}
	return ts
}

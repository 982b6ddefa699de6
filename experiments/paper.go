package experiments

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// PaperSpec names the paper a spec reproduces and the numbers and claims of
// it that the run's own results are printed beside (summary.md and the
// `landmark run` output). It changes nothing that is computed, so the spec
// hash leaves it out and editing it never invalidates resumed results.
type PaperSpec struct {
	// Source cites the paper and its table or figure, for example
	// "Si, Hsieh & Dhillon (JMLR 2017), Table 7, ijcnn1".
	Source string `yaml:"source" json:"source"`
	// Note says how the setting differs from the paper's (subsets, σ chosen
	// here, units), so that the two columns are read correctly.
	Note string `yaml:"note,omitempty" json:"note,omitempty"`
	// Figures are numbers the paper reports (or, where it gives none for
	// this setting, its statements), each beside ours.
	Figures []PaperFigure `yaml:"figures,omitempty" json:"figures,omitempty"`
	// Claims are the paper's comparisons between two approximation methods,
	// checked at every grid point of an approximation run.
	Claims []PaperClaim `yaml:"claims,omitempty" json:"claims,omitempty"`
}

// PaperFigure is one number of the paper and the result of this run it is
// compared with: metric at the grid point At (of Method, in approximation
// runs). Without At, an estimator run uses its test score (or the best
// point's CV score when there is no test set) and an approximation run needs
// a grid with one point per method.
type PaperFigure struct {
	// What labels the number, for example "MEKA, c = 10, k = 128".
	What string `yaml:"what" json:"what"`
	// Paper is the paper's value.
	Paper float64 `yaml:"paper" json:"paper"`
	// Statement, instead of Paper, gives what the paper states in words when
	// it gives no number for this setting (its data are not here, or it
	// only plots the result), for example "5 iterations of FALKON-BLESS
	// reach the AUC of 20 of FALKON-UNI (SUSY)".
	Statement string `yaml:"statement,omitempty" json:"statement,omitempty"`
	// Metric is the run's metric or measure put beside it.
	Metric string `yaml:"metric" json:"metric"`
	// Method is the approximation method (approximation runs only).
	Method string `yaml:"method,omitempty" json:"method,omitempty"`
	// At selects the grid point by its axis values.
	At map[string]float64 `yaml:"at,omitempty" json:"at,omitempty"`
}

// PaperClaim is a comparison the paper makes: method Lower has a lower
// Metric than method Than (approximation runs).
type PaperClaim struct {
	// What states the claim in the paper's words' sense.
	What string `yaml:"what" json:"what"`
	// Lower and Than are approximation method names of the run.
	Lower string `yaml:"lower" json:"lower"`
	Than  string `yaml:"than" json:"than"`
	// Metric is the measure compared (frobenius or spectral).
	Metric string `yaml:"metric" json:"metric"`
	// Paper is the paper's own numbers for the claim, when it gives them
	// ("0.0082 vs 0.0423"); default "Lower < Than".
	Paper string `yaml:"paper,omitempty" json:"paper,omitempty"`
}

// PaperLine is one row of the paper-beside-ours table.
type PaperLine struct {
	// What is the figure's or claim's label.
	What string `json:"what"`
	// Paper is the paper's value ("lower" for a claim).
	Paper string `json:"paper"`
	// Ours is this run's value, or for a claim at how many grid points it
	// holds ("3 of 4 points: m=100 0.012 < 0.034, …").
	Ours string `json:"ours"`
}

// paperKeys and its lists are the keys of the paper block's levels.
var (
	paperKeys       = yamlKeys(reflect.TypeOf(PaperSpec{}))
	paperFigureKeys = yamlKeys(reflect.TypeOf(PaperFigure{}))
	paperClaimKeys  = yamlKeys(reflect.TypeOf(PaperClaim{}))
)

// validatePaper checks the paper block against the run: metric names of the
// task or measures of the approximation, methods of the run, grid axes and
// values of At.
func (s *Spec) validatePaper() error {
	p := s.Paper
	if p == nil {
		return nil
	}
	if strings.TrimSpace(p.Source) == "" {
		return s.errAt("missing source (the paper and its table or figure)", "paper", "source")
	}
	if len(p.Figures) == 0 && len(p.Claims) == 0 {
		return s.errAt("no figures and no claims: nothing to print beside the paper", "paper")
	}
	metrics, methods := s.paperVocabulary()
	for i, f := range p.Figures {
		at := fmt.Sprintf("[%d]", i)
		if strings.TrimSpace(f.What) == "" {
			return s.errAt("missing what (the figure's label)", "paper", "figures", at, "what")
		}
		if math.IsNaN(f.Paper) || math.IsInf(f.Paper, 0) {
			return s.errAt(fmt.Sprintf("paper = %v, want a finite number", f.Paper), "paper", "figures", at, "paper")
		}
		if f.Statement != "" && f.Paper != 0 {
			return s.errAt("give paper (the paper's number) or statement (its words), not both", "paper", "figures", at)
		}
		if err := s.checkPaperName(f.Metric, metrics, "metric", "figures", at, "metric"); err != nil {
			return err
		}
		if s.Approximation != nil {
			if err := s.checkPaperName(f.Method, methods, "method", "figures", at, "method"); err != nil {
				return err
			}
		} else if f.Method != "" {
			return s.errAt("method applies to approximation runs only", "paper", "figures", at, "method")
		}
		for _, k := range sortedKeys(f.At) {
			vals, ok := s.Grid[k]
			if !ok {
				return s.errAt(fmt.Sprintf("%s is not a grid axis (axes: %s)", k, strings.Join(s.Grid.Axes(), ", ")), "paper", "figures", at, "at", k)
			}
			if !slices.Contains(vals, f.At[k]) {
				return s.errAt(fmt.Sprintf("%s = %g is not among the grid's values %v", k, f.At[k], vals), "paper", "figures", at, "at", k)
			}
		}
		if len(f.At) == 0 && s.Approximation != nil && len(s.Grid.Points()) > 1 {
			return s.errAt("missing at: the grid has several points, say which one the figure is", "paper", "figures", at)
		}
	}
	for i, c := range p.Claims {
		at := fmt.Sprintf("[%d]", i)
		if s.Approximation == nil {
			return s.errAt("claims compare approximation methods; this is an estimator run", "paper", "claims", at)
		}
		if strings.TrimSpace(c.What) == "" {
			return s.errAt("missing what (the claim in words)", "paper", "claims", at, "what")
		}
		if err := s.checkPaperName(c.Metric, metrics, "metric", "claims", at, "metric"); err != nil {
			return err
		}
		if err := s.checkPaperName(c.Lower, methods, "method", "claims", at, "lower"); err != nil {
			return err
		}
		if err := s.checkPaperName(c.Than, methods, "method", "claims", at, "than"); err != nil {
			return err
		}
		if c.Lower == c.Than {
			return s.errAt(fmt.Sprintf("lower and than are both %s", c.Lower), "paper", "claims", at)
		}
	}
	return nil
}

// paperVocabulary lists the metric and method names a paper block may use.
func (s *Spec) paperVocabulary() (metrics, methods []string) {
	if s.Approximation != nil {
		return s.Approximation.measures(), s.Approximation.Methods
	}
	for _, m := range taskMetrics(s.Task) {
		metrics = append(metrics, m.Name)
	}
	return metrics, nil
}

func (s *Spec) checkPaperName(name string, known []string, what string, path ...string) error {
	if slices.Contains(known, name) {
		return nil
	}
	full := append([]string{"paper"}, path...)
	if name == "" {
		return s.errAt(fmt.Sprintf("missing %s (one of %s)", what, strings.Join(known, ", ")), full...)
	}
	return s.errAt(fmt.Sprintf("%s %q is not one of this run's (%s)%s", what, name, strings.Join(known, ", "), DidYouMean(name, known)), full...)
}

// Paper returns the rows of the paper-beside-ours table (nil without a
// paper block): each figure with the run's value, each claim with the grid
// points where it holds. Failed or missing points read "–".
func (r *Result) Paper() []PaperLine {
	p := r.Spec.Paper
	if p == nil {
		return nil
	}
	var out []PaperLine
	for _, f := range p.Figures {
		paper := paperNum(f.Paper)
		if f.Statement != "" {
			paper = f.Statement
		}
		out = append(out, PaperLine{What: f.What, Paper: paper, Ours: r.paperOurs(f)})
	}
	for _, c := range p.Claims {
		paper := c.Paper
		if paper == "" {
			paper = fmt.Sprintf("%s < %s", c.Lower, c.Than)
		}
		out = append(out, PaperLine{What: c.What, Paper: paper, Ours: r.claimOurs(c)})
	}
	return out
}

// paperOurs is the run's value for figure f.
func (r *Result) paperOurs(f PaperFigure) string {
	if len(f.At) == 0 && r.Spec.Approximation == nil {
		if r.Test != nil {
			for _, m := range r.Test.Metrics {
				if m.Name == f.Metric {
					return paperNum(m.Mean) + " (test)"
				}
			}
		}
		if r.Best >= 0 {
			if s, ok := r.Points[r.Best].Metric(f.Metric); ok {
				return paperNum(s.Mean) + " (CV, best point)"
			}
		}
		return "–"
	}
	for _, pt := range r.Points {
		if pt.Method != f.Method || !pointAt(pt.Params, f.At) {
			continue
		}
		if s, ok := pt.Metric(f.Metric); ok && pt.Error == "" {
			if r.Spec.Approximation != nil {
				return paperNum(s.Mean)
			}
			return paperNum(s.Mean) + " (CV)"
		}
	}
	return "–"
}

// claimOurs counts the grid settings where c.Lower's metric is strictly
// below c.Than's; equal values (QR and standard Nyström coincide when the
// rank is m) are shown as "=" and not counted.
func (r *Result) claimOurs(c PaperClaim) string {
	type pair struct {
		lo, th float64
		ok     [2]bool
	}
	var keys []string
	pairs := map[string]*pair{}
	for _, pt := range r.Points {
		if pt.Method != c.Lower && pt.Method != c.Than || pt.Error != "" {
			continue
		}
		s, ok := pt.Metric(c.Metric)
		if !ok || math.IsNaN(s.Mean) {
			continue
		}
		k := strings.TrimPrefix(strings.TrimPrefix(pt.Key, "method="+pt.Method), ",")
		q := pairs[k]
		if q == nil {
			q = &pair{}
			pairs[k] = q
			keys = append(keys, k)
		}
		if pt.Method == c.Lower {
			q.lo, q.ok[0] = s.Mean, true
		} else {
			q.th, q.ok[1] = s.Mean, true
		}
	}
	holds, total := 0, 0
	var parts []string
	for _, k := range keys {
		q := pairs[k]
		if !q.ok[0] || !q.ok[1] {
			continue
		}
		total++
		var rel string
		switch {
		case q.lo < q.th:
			rel = "<"
			holds++
		case q.lo == q.th:
			rel = "="
		default:
			rel = ">"
		}
		label := k
		if label == "" {
			label = "(no grid)"
		}
		parts = append(parts, fmt.Sprintf("%s %.3g %s %.3g", label, q.lo, rel, q.th))
	}
	if total == 0 {
		return "–"
	}
	return fmt.Sprintf("holds at %d of %d points (%s)", holds, total, strings.Join(parts, "; "))
}

// paperNum formats a figure: four significant digits, and whole numbers
// from 10⁴ on (an RMSE in dollars reads 58039, not 5.804e+04).
func paperNum(v float64) string {
	if a := math.Abs(v); a >= 1e4 && a < 1e15 {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return fmt.Sprintf("%.4g", v)
}

// pointAt says whether params has every value of at.
func pointAt(params Point, at map[string]float64) bool {
	for k, v := range at {
		if pv, ok := params.Value(k); !ok || pv != v {
			return false
		}
	}
	return true
}

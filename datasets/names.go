package datasets

import (
	"fmt"
	"strconv"
	"strings"
)

// FeatureName returns the name implied for feature j (0-based) of data that
// names none: "x" and the 1-based column number, the LIBSVM index — the
// header WriteCSV writes for unnamed data.
func FeatureName(j int) string { return "x" + strconv.Itoa(j+1) }

// ImpliedFeature returns the feature (0-based) that name denotes among d
// unnamed features — "x<j>" with j written as strconv.Itoa writes it (no
// sign, no leading zero) and 1 ≤ j ≤ d is feature j−1 — and whether it
// denotes one. It builds nothing: matching a header against the names of
// 10⁸ unnamed features costs what the header costs.
func ImpliedFeature(name string, d int) (int, bool) {
	num, ok := strings.CutPrefix(name, "x")
	if !ok || num == "" || num[0] < '1' || num[0] > '9' {
		return 0, false
	}
	j, err := strconv.Atoi(num)
	if err != nil || j > d || strconv.Itoa(j) != num {
		return 0, false
	}
	return j - 1, true
}

// featureNames are the names of the training features a CSV header is
// matched against: a list (ReadOptions.Features) or the implied x1…xd
// (ReadOptions.ImpliedFeatures), which is never built.
type featureNames interface {
	// index returns the feature a column name denotes.
	index(name string) (int, bool)
	// count is the number of features.
	count() int
	// name returns feature k's name.
	name(k int) string
}

// listNames are named features.
type listNames struct {
	list []string
	at   map[string]int
}

func newListNames(list []string) listNames {
	at := make(map[string]int, len(list))
	for k, f := range list {
		at[f] = k
	}
	return listNames{list: list, at: at}
}

func (l listNames) index(name string) (int, bool) { k, ok := l.at[name]; return k, ok }
func (l listNames) count() int                    { return len(l.list) }
func (l listNames) name(k int) string             { return l.list[k] }

// impliedNames are d unnamed features, named x1…xd.
type impliedNames int

func (d impliedNames) index(name string) (int, bool) { return ImpliedFeature(name, int(d)) }
func (d impliedNames) count() int                    { return int(d) }
func (d impliedNames) name(k int) string             { return FeatureName(k) }

// listedNames is how many names a message lists before it abbreviates.
const listedNames = 20

// quoteSome quotes the names n(0)…n(count−1) for a message, joined by ", ",
// and abbreviates a long list to its first listedNames names and the total
// (a header of 10⁶ names makes no readable message).
func quoteSome(count int, n func(int) string, quote bool) string {
	shown := min(count, listedNames)
	parts := make([]string, 0, shown+1)
	for k := range shown {
		s := n(k)
		if quote {
			s = strconv.Quote(s)
		}
		parts = append(parts, s)
	}
	if count > shown {
		parts = append(parts, fmt.Sprintf("… (%d in all)", count))
	}
	return strings.Join(parts, ", ")
}

// describeNames describes the features for a message: x1…xd for implied
// names, else the (abbreviated) list.
func describeNames(f featureNames) string {
	if d, ok := f.(impliedNames); ok {
		if d == 1 {
			return "x1 (unnamed)"
		}
		return fmt.Sprintf("x1…x%d (unnamed)", int(d))
	}
	return quoteSome(f.count(), f.name, false)
}

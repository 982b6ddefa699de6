package experiments

import (
	"fmt"
	"strings"
)

// DidYouMean returns ` (did you mean "x"?)` when one of known is within a
// small edit distance of name (case-insensitive; at most 1 edit for names
// up to 4 letters, else at most a third of the letters), the nearest first;
// else "". Error messages append it to an unknown name.
func DidYouMean(name string, known []string) string {
	best, bestD := "", -1
	n := strings.ToLower(name)
	for _, k := range known {
		d := editDistance(n, strings.ToLower(k))
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	limit := max(1, len([]rune(n))/3)
	if best == "" || bestD > limit || bestD == 0 && best == name {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance between a and b (in runes).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := prev[j-1]
			if ra[i-1] != rb[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

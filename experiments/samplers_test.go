package experiments

import (
	"testing"

	"github.com/landmark-ml/landmark/model"
)

// TestSamplerName: every sampler a spec names is named back by
// SamplerName (rls and rls-accelerated are the same type, told apart by
// Accelerated), and a sampler no name builds has no name.
func TestSamplerName(t *testing.T) {
	for _, e := range samplers {
		if got := SamplerName(e.make(ApproxParams{Compression: 0.5, KMeansIter: 3})); got != e.name {
			t.Errorf("SamplerName(%s's sampler) = %q", e.name, got)
		}
	}
	if got := SamplerName(model.NotSaved{}); got != "" {
		t.Errorf("a sampler without a name: %q", got)
	}
}

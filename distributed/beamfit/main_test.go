package beamfit

import (
	"flag"
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// TestMain initializes Beam, as every program using this package must
// (after flag.Parse, before building pipelines).
func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	os.Exit(m.Run())
}

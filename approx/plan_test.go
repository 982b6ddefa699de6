package approx

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	rtm "runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// heapNow is the Go heap's object bytes (live and not yet swept).
func heapNow() uint64 {
	s := []rtm.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	rtm.Read(s)
	return s[0].Value.Uint64()
}

// TestPlanPeak measures each sampler's heap growth (sampled every 0.2 ms)
// while drawing m = 400 landmarks of 4000×5 Gaussian data and prints it
// beside PlanBytes. It takes about a minute, so it runs only with
// LANDMARK_PLANPEAK=1:
//
//	LANDMARK_PLANPEAK=1 GOGC=10 go test ./approx -run TestPlanPeak -v
//
// (GOGC=10 keeps garbage from counting as peak). It fails when a measured
// peak exceeds the plan by more than 50%: plans are estimates of the largest
// arrays, not exact accounting.
func TestPlanPeak(t *testing.T) {
	if os.Getenv("LANDMARK_PLANPEAK") == "" {
		t.Skip("set LANDMARK_PLANPEAK=1 to measure the samplers' memory plans")
	}
	n, d, m := 4000, 5, 400
	rng := rand.New(rand.NewPCG(1, 1))
	x := mat.NewDense(n, d, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	k := kernel.Gaussian{Gamma: 0.2}
	type pl interface {
		Sampler
		PlanBytes(n, d, m int) int64
	}
	for _, s := range []pl{Uniform{}, ExactRLS{}, RecursiveRLS{}, RecursiveRLS{Accelerated: true}, BLESS{}, BLESSR{}, KMeansCenters{}, RandomizedClustered{}} {
		runtime.GC()
		base := heapNow()
		var peak atomic.Uint64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			for {
				select {
				case <-stop:
					close(done)
					return
				default:
				}
				if h := heapNow(); h > peak.Load() {
					peak.Store(h)
				}
				time.Sleep(200 * time.Microsecond)
			}
		}()
		_, err := s.Sample(context.Background(), x, k, m, rand.New(rand.NewPCG(2, 2)))
		close(stop)
		<-done
		if err != nil {
			t.Fatal(err)
		}
		plan, got := s.PlanBytes(n, d, m), int64(peak.Load())-int64(base)
		t.Logf("%-28T plan %8.2f MiB  measured peak growth %8.2f MiB", s, float64(plan)/(1<<20), float64(got)/(1<<20))
		if float64(got) > 1.5*float64(plan) && got > 1<<20 {
			t.Errorf("%T: measured %d bytes, plan %d", s, got, plan)
		}
	}
}

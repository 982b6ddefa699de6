package model

import (
	"context"
	"errors"
	"os"
	"regexp"
	rtm "runtime/metrics"
	"strconv"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
)

// heapObjects is the Go heap's object bytes (live and not yet swept).
func heapObjects() uint64 {
	s := []rtm.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	rtm.Read(s)
	return s[0].Value.Uint64()
}

// TestMemoryPlanPeak measures each estimator's heap growth during Fit
// (sampled every 0.2 ms) on 3000×3 data beside its plan: the bytes named by
// the refusal of a 1-byte cap (the first check that fails: the sampler's,
// the solve's or the whole fit's), plus those named by a second refusal at
// that cap when there is one (MEKA KRR: the approximation gets what the
// solve leaves), or Info's planned bytes if larger. It takes a while, so it
// runs only with
// LANDMARK_PLANPEAK=1:
//
//	LANDMARK_PLANPEAK=1 GOGC=10 go test ./model -run TestMemoryPlanPeak -v
//
// It fails when a measured peak exceeds the plan by more than 50%, and for
// Falkon, whose plan counts each allocation of the fit (K_MM, the second M×M
// matrix, the factorizations' packing buffers and panels, the engine's
// scratch), by more than 25%: measured 24.0–25.0 MiB against a plan of
// 25.8–25.9 MiB at M = 1000 with the default GOGC (6 runs). The
// measure counts garbage not yet collected: before the kernel engine, the
// factorizations and MulKMM recycled their per-call scratch (one fit
// allocated 82 MiB, now 24–26), the heap ran up to its GC goal, 42–45 MiB
// (1.75×), with 21 MiB live. The rest is the Go runtime's: pooled buffers of
// earlier phases not yet collected, small per-call slices.
func TestMemoryPlanPeak(t *testing.T) {
	if os.Getenv("LANDMARK_PLANPEAK") == "" {
		t.Skip("set LANDMARK_PLANPEAK=1 to measure the estimators' memory plans")
	}
	x, y, labels := memoryData(3000)
	k := kernel.Gaussian{Gamma: 1}
	ctx := context.Background()
	type est struct {
		name string
		fit  func(limit int64) error
	}
	var infoPlan int64 // set by a successful KRR or Falkon fit
	krr := func(a KRRApprox) func(int64) error {
		return func(l int64) error {
			m := &KRR{Kernel: k, Lambda: 1e-3, Approx: a, Resources: Resources{MemoryLimit: l}}
			err := m.Fit(ctx, x, y)
			infoPlan = m.Info().MemoryBytes
			return err
		}
	}
	for _, e := range []est{
		{"exact KRR", krr(nil)},
		{"nystrom KRR uniform M=1000", krr(NystromKRR{M: 1000})},
		{"nystrom KRR rls M=500", krr(NystromKRR{M: 500, Sampler: approx.RecursiveRLS{}})},
		{"feature ridge nystrom-qr M=1000", krr(FeatureRidge{Features: NystromFeatures{M: 1000, Nystrom: approx.Nystrom{QR: true}}})},
		{"meka KRR c=8 k=128", krr(&MEKAKRR{Options: meka.Options{Clusters: 8, Rank: 128}})},
		{"falkon M=1000", func(l int64) error {
			f := &Falkon{Kernel: k, Lambda: 1e-4, M: 1000, Resources: Resources{MemoryLimit: l}}
			err := f.Fit(ctx, x, y)
			infoPlan = f.Info().Plan.Total
			return err
		}},
		{"svm cache 64 MiB", func(l int64) error {
			return (&SVM{Kernel: k, CacheBytes: 64 << 20, Resources: Resources{MemoryLimit: l}}).Fit(ctx, x, labels)
		}},
		{"bka-svm c=4 cache 64 MiB", func(l int64) error {
			return (&BKASVM{Kernel: k, Clusters: 4, CacheBytes: 64 << 20, Resources: Resources{MemoryLimit: l}}).Fit(ctx, x, labels)
		}},
	} {
		err := e.fit(1)
		m := regexp.MustCompile(`(\d+) bytes`).FindStringSubmatch(errString(err))
		if !errors.Is(err, ErrMemory) || m == nil {
			t.Fatalf("%s: 1-byte cap: %v", e.name, err)
		}
		plan, _ := strconv.ParseInt(m[1], 10, 64)
		if err := e.fit(plan); errors.Is(err, ErrMemory) {
			m := regexp.MustCompile(`(\d+) bytes`).FindStringSubmatch(err.Error())
			more, _ := strconv.ParseInt(m[1], 10, 64)
			plan += more
		} else if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		plan = max(plan, infoPlan)
		infoPlan = 0
		got, err := heapPeak(func() error { return e.fit(0) })
		if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		plan = max(plan, infoPlan)
		t.Logf("%-34s plan %8.2f MiB  measured peak growth %8.2f MiB", e.name, float64(plan)/(1<<20), float64(got)/(1<<20))
		tol := 1.5
		if e.name == "falkon M=1000" {
			tol = 1.25
		}
		if float64(got) > tol*float64(plan) && got > 1<<20 {
			t.Errorf("%s: measured %d bytes, plan %d", e.name, got, plan)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

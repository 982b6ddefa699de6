package experiments

import (
	rtmetrics "runtime/metrics"
	"sync"
	"time"
)

// heapSample is the runtime metric for bytes held by live and not yet swept
// heap objects; cheap to read, no stop-the-world.
const heapSample = "/memory/classes/heap/objects:bytes"

// memWatch samples the Go heap every few milliseconds between start and stop
// and reports the peak growth over the level at start: an estimate of the
// extra memory a fit and predict needed (Go heap only, sampled, so short
// spikes between samples can be missed).
type memWatch struct {
	base uint64
	peak uint64
	stop chan struct{}
	done sync.WaitGroup
	mu   sync.Mutex
}

func heapBytes() uint64 {
	s := []rtmetrics.Sample{{Name: heapSample}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

func startMemWatch() *memWatch {
	w := &memWatch{stop: make(chan struct{})}
	w.base = heapBytes()
	w.peak = w.base
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				w.sample()
			}
		}
	}()
	return w
}

func (w *memWatch) sample() {
	b := heapBytes()
	w.mu.Lock()
	if b > w.peak {
		w.peak = b
	}
	w.mu.Unlock()
}

// Stop ends sampling and returns the peak growth in bytes.
func (w *memWatch) Stop() int64 {
	w.sample()
	close(w.stop)
	w.done.Wait()
	return int64(w.peak - w.base)
}

package kernel

import "sync/atomic"

// packPipe packs the operand of a product group by group while its tiles
// run: Dense's and DenseF32's SyrkLower on AVX-512 in one chunk of k-blocks
// (the trailing update of a blocked Cholesky factorization, a block row of
// lauum). Group q is the panels of B̂ holding the columns of row block q of
// c; the tasks of row block ib need groups 0…ib (their columns and, read in
// place, their rows). Before its task, a worker claims and packs the
// unclaimed groups up to pipeAhead past its row block, then waits (blocked,
// not spinning) for any group it needs that another worker is still
// packing. Packing then no longer stops every worker before the first tile
// (a parallel pass over the whole operand with all workers reading memory
// at once, then a barrier): it runs a group at a time beside the other
// workers' tiles. The packed values do not depend on who packs them, nor
// do the tiles' sums.
type packPipe struct {
	next  atomic.Int64 // the first unclaimed group
	ready atomic.Int64 // every group below it is known to be packed
	done  []chan struct{}
	pack  func(q int)
}

// pipeAhead is how many groups past its row block a worker packs before
// its task: with one, the worker moving to the next row block often found
// its group still being packed by the other.
const pipeAhead = 2

func newPackPipe(groups int, pack func(q int)) *packPipe {
	p := &packPipe{done: make([]chan struct{}, groups), pack: pack}
	for q := range p.done {
		p.done[q] = make(chan struct{})
	}
	return p
}

// need packs the unclaimed groups below min(ib+1+pipeAhead, groups) and
// returns once groups 0…ib are all packed.
func (p *packPipe) need(ib int) {
	upto := min(ib+1+pipeAhead, len(p.done))
	for {
		q := p.next.Load()
		if q >= int64(upto) {
			break
		}
		if p.next.CompareAndSwap(q, q+1) {
			p.pack(int(q))
			close(p.done[q])
		}
	}
	r := p.ready.Load()
	if r > int64(ib) {
		return
	}
	for q := r; q <= int64(ib); q++ {
		<-p.done[q]
	}
	for r < int64(ib)+1 && !p.ready.CompareAndSwap(r, int64(ib)+1) {
		r = p.ready.Load()
	}
}

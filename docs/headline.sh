#!/usr/bin/env bash
# The headline run of docs/performance.md (issue 25's "Done when"), in the order it is recorded there.
# Run from the repository root on an otherwise idle machine, with scikit-learn, numpy, scipy and
# FALKON 0.8.4 installed (see docs/performance.md, "Machines"; FALKON: ../shared/tools/build_falkon.sh)
# and the shared datasets at ../shared/datasets (or $LANDMARK_SHARED_DATA).
#   OUT=/tmp/run PART=kernel|falkon|all bash docs/headline.sh
# Each command's output goes to $OUT/NAME.out, its /usr/bin/time -v report to $OUT/NAME.err, and a
# line with the start time and load average to $OUT/log. The baselines run on their native BLAS
# kernels: OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for those commands only.
set -u
OUT=${OUT:-/tmp/landmark-headline}
PART=${PART:-all}
PY=${PYTHON:-/usr/bin/python3}
mkdir -p "$OUT"
L=$OUT/landmark
go build -o "$L" ./cmd/landmark || exit 1
git rev-parse --short HEAD > "$OUT/rev" 2>/dev/null
native="env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE"
run() {
	local name=$1
	shift
	echo "== $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg) $name: $*" | tee -a "$OUT/log"
	/usr/bin/time -v "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
}
if [ "$PART" = kernel ] || [ "$PART" = all ]; then
	run kernel $native "$L" bench kernel -d 54,784 -float32 -rounds 3 -python "$PY"
	# The AVX2 pair: the engine capped at AVX2, OpenBLAS forced to its Haswell (AVX2) kernels.
	run kernel_avx2 env -u OPENBLAS_L2_SIZE LANDMARK_SIMD=avx2 OPENBLAS_CORETYPE=Haswell "$L" bench kernel -d 54,784 -float32 -rounds 3 -python "$PY"
	run linalg $native "$L" bench linalg -m 10000 -repeats 3 -gonum=false -python "$PY"
	run laplacian go test ./kernel -run '^$' -bench 'Laplacian(Block)?$/d=54/(avx512|avx2|portable)' -benchtime 3x
	run bless go test -run '^$' -bench BLESSCostIJCNN1 -benchtime 5x -v ./model/
fi
if [ "$PART" = falkon ] || [ "$PART" = all ]; then
	run mnist $native "$L" bench falkon -data mnist -float32-storage -cache -baseline falkon -python "$PY"
	run covtype $native "$L" bench falkon -data covtype -m 10000 -precisions float64,float32 -baseline falkon -falkon-dtypes float32 -python "$PY"
	run covtype_nofactor $native "$L" bench falkon -data covtype -m 10000 -precisions float64,float32 -factor off -sklearn-m none
	for i in 1 2 3; do
		run setup$i $native "$L" bench falkon -data covtype -m 10000 -iter 1 -precisions float32 -sklearn-m none -progress never
	done
fi
echo "== done $(date -u +%T)" | tee -a "$OUT/log"

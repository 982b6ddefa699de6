#!/usr/bin/env bash
# A FALKON fit on Beam in three OS processes on one machine: Beam's Prism job
# server, an SDK worker pool (landmark-beam worker-pool: Beam's EXTERNAL
# environment, where every pass's code runs) and the driver (landmark-beam
# falkon, which holds the centers, the preconditioner and the CG vectors).
#
#   distributed/scripts/multiprocess.sh --data DIR/manifest.json --m 2000 --sigma 4 \
#       --lambda 1e-6 --iter 10 --standardize --save model.lmk
#
# Every argument goes to `landmark-beam falkon`. Environment:
#   BIN        folder for the prism and landmark-beam binaries (default: a new
#              temporary folder); PRISM / LANDMARK_BEAM use existing binaries
#   JOB_PORT   Prism's job service port (default 8073)
#   POOL_PORT  the worker pool's port (default 50000)
#   LOG_DIR    where prism.log and pool.log go (default: BIN)
# Both servers are stopped when the fit ends (or fails, or on Ctrl-C).
set -euo pipefail
module=$(cd "$(dirname "$0")/.." && pwd) # distributed/
BIN=${BIN:-$(mktemp -d "${TMPDIR:-/tmp}/landmark-beam-mp.XXXXXX")}
JOB_PORT=${JOB_PORT:-8073}
POOL_PORT=${POOL_PORT:-50000}
LOG_DIR=${LOG_DIR:-$BIN}
if [ -z "${PRISM:-}" ]; then
  PRISM=$BIN/prism
  # The Beam SDK version of distributed/go.mod, so job server and SDK match.
  (cd "$module" && go build -o "$PRISM" github.com/apache/beam/sdks/v2/go/cmd/prism)
fi
if [ -z "${LANDMARK_BEAM:-}" ]; then
  LANDMARK_BEAM=$BIN/landmark-beam
  (cd "$module" && go build -o "$LANDMARK_BEAM" ./cmd/landmark-beam)
fi

pids=()
stop() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap stop EXIT
trap 'exit 130' INT TERM

"$PRISM" --job_port "$JOB_PORT" --serve_http=false >"$LOG_DIR/prism.log" 2>&1 &
pids+=($!)
echo "job server: prism, pid $!, localhost:$JOB_PORT (log $LOG_DIR/prism.log)"
# The worker pool, restarted whenever it dies (as a cluster manager restarts a
# lost worker); its current pid is in $LOG_DIR/pool.pid. A pass it was running
# fails and the driver launches it again after --retry-wait.
: >"$LOG_DIR/pool.log"
(
  trap 'kill "$(cat "$LOG_DIR/pool.pid")" 2>/dev/null; exit 0' TERM
  while :; do
    "$LANDMARK_BEAM" worker-pool --port "$POOL_PORT" --beam-log info >>"$LOG_DIR/pool.log" 2>&1 &
    echo $! >"$LOG_DIR/pool.pid"
    wait $! || true
    echo "multiprocess.sh: worker pool exited, restarting it" >>"$LOG_DIR/pool.log"
    sleep 0.2
  done
) &
pids+=($!)
echo "worker pool: landmark-beam worker-pool, localhost:$POOL_PORT, restarted if it dies (log $LOG_DIR/pool.log)"

# Wait (up to 30 s) until both accept connections.
for port in "$JOB_PORT" "$POOL_PORT"; do
  for i in $(seq 150); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    if [ "$i" = 150 ]; then echo "multiprocess.sh: nothing listens on port $port after 30 s" >&2; exit 1; fi
    sleep 0.2
  done
done

# --worker_binary: the universal runner uploads a worker binary to the job
# server with every job, although EXTERNAL workers (the pool's) never run it.
# Without the flag the SDK cross-compiles the driver's sources (which fails
# outside the source tree); naming landmark-beam itself costs ≈ 0.3 s per
# pass to upload its 119 MB. A placeholder file costs nothing.
placeholder=$BIN/worker-binary.unused
printf 'not run: EXTERNAL workers run in landmark-beam worker-pool\n' >"$placeholder"
echo "driver: landmark-beam falkon (this script's child process)"
"$LANDMARK_BEAM" falkon --runner universal --endpoint "localhost:$JOB_PORT" \
  --environment_type EXTERNAL --environment_config "localhost:$POOL_PORT" \
  --worker_binary "$placeholder" "$@"

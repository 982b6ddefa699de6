# Reference timing for "landmark bench kernel": scikit-learn's rbf_kernel
# followed by the two numpy products K.T @ (K @ v), plus the distance product
# X @ C.T in float64 (DGEMM) and float32 (SGEMM), on the arrays Landmark wrote.
# Usage: python3 bench_kernel.py FILE N M D GAMMA REPEATS
# FILE holds X (N×D), C (M×D) and v (M) as little-endian float64, row major.
# Prints one JSON object per line.
import json
import sys
import time

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel


def best(f, repeats):
    out, t = None, float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = f()
        t = min(t, time.perf_counter() - t0)
    return out, t


def main():
    path, n, m, d, gamma, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
    raw = np.fromfile(path, dtype="<f8")
    x = raw[: n * d].reshape(n, d)
    c = raw[n * d : n * d + m * d].reshape(m, d)
    v = raw[n * d + m * d : n * d + m * d + m].copy()

    def fused():
        k = rbf_kernel(x, c, gamma=gamma)
        return k.T @ (k @ v)

    w, t = best(fused, repeats)
    print(json.dumps({"what": "fused", "seconds": t, "result": w.tolist()}), flush=True)
    _, t = best(lambda: x @ c.T, repeats)
    print(json.dumps({"what": "dgemm", "seconds": t}), flush=True)
    x32, c32 = x.astype(np.float32), c.astype(np.float32)
    _, t = best(lambda: x32 @ c32.T, repeats)
    print(json.dumps({"what": "sgemm", "seconds": t}), flush=True)


if __name__ == "__main__":
    main()

# Reference timing for "landmark bench linalg": LAPACK dpotrf and dlauum and
# BLAS dtrsm, then spotrf, slauum and strsm on the same matrices rounded to
# float32 (what FALKON factors its preconditioner with for float32 data),
# through scipy.linalg (numpy/scipy's BLAS and LAPACK: OpenBLAS on
# this project's machine), on the same kind of matrix Landmark factors: the
# Gaussian kernel matrix of the points Landmark wrote plus 1e-5·M·I.
# Usage: python3 bench_linalg.py FILE M D RHS REPEATS
# FILE holds X (M×D) as little-endian float64, row major; the RHS×M
# right-hand sides are standard normal (seed 1). Copies are not timed.
# Prints one JSON object per line.
import json
import sys
import time

import numpy as np
from scipy.linalg import blas, lapack


def best(setup, f, repeats):
    t = float("inf")
    for _ in range(repeats):
        arg = setup()
        t0 = time.perf_counter()
        f(arg)
        t = min(t, time.perf_counter() - t0)
    return t


def main():
    path, m, d, rhs, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    x = np.fromfile(path, dtype="<f8")[: m * d].reshape(m, d)
    sq = (x * x).sum(axis=1)
    k = np.exp(-np.maximum(sq[:, None] + sq[None, :] - 2 * (x @ x.T), 0) / d)
    k[np.diag_indices(m)] += 1e-5 * m
    a = np.asfortranarray(k)
    del k

    def potrf(f):
        _, info = lapack.dpotrf(f, lower=1, clean=0, overwrite_a=1)
        if info != 0:
            raise SystemExit("dpotrf failed: info = %d" % info)

    t = best(lambda: a.copy(order="F"), potrf, repeats)
    print(json.dumps({"what": "potrf", "seconds": t}), flush=True)
    l, _ = lapack.dpotrf(a, lower=1, clean=1)
    t = best(lambda: l.copy(order="F"), lambda f: lapack.dlauum(f, lower=1, overwrite_c=1), repeats)
    print(json.dumps({"what": "lauum", "seconds": t}), flush=True)
    b = np.asfortranarray(np.random.default_rng(1).standard_normal((m, rhs)))
    t = best(lambda: b.copy(order="F"), lambda f: blas.dtrsm(1.0, l, f, lower=1, overwrite_b=1), repeats)
    print(json.dumps({"what": "trsm", "seconds": t}), flush=True)
    del l

    a32 = np.asfortranarray(a, dtype=np.float32)
    del a

    def spotrf(f):
        _, info = lapack.spotrf(f, lower=1, clean=0, overwrite_a=1)
        if info != 0:
            raise SystemExit("spotrf failed: info = %d" % info)

    t = best(lambda: a32.copy(order="F"), spotrf, repeats)
    print(json.dumps({"what": "potrf32", "seconds": t}), flush=True)
    l32, _ = lapack.spotrf(a32, lower=1, clean=1)
    del a32
    t = best(lambda: l32.copy(order="F"), lambda f: lapack.slauum(f, lower=1, overwrite_c=1), repeats)
    print(json.dumps({"what": "lauum32", "seconds": t}), flush=True)
    b32 = np.asfortranarray(b, dtype=np.float32)
    t = best(lambda: b32.copy(order="F"), lambda f: blas.strsm(1.0, l32, f, lower=1, overwrite_b=1), repeats)
    print(json.dumps({"what": "trsm32", "seconds": t}), flush=True)


if __name__ == "__main__":
    main()

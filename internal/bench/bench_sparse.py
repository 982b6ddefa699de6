# Baselines of `landmark bench sparse`: one method per process, on the LIBSVM
# train/test pair the Go side fits, kept sparse (scipy CSR; FALKON's own
# SparseTensor). Prints one JSON line on stdout; notes go to stderr.
# Called as: python -c SCRIPT METHOD TRAIN TEST DIM M GAMMA LAMBDA ITERS SEED MAXMEM_GB
# METHOD is sklearn (Nystroem + RidgeClassifier, float64) or falkon (FALKON on
# sparse tensors, CPU, float32, 2 threads). DIM 0: the largest index in the
# two files. Multi-class targets are one-vs-rest ±1 columns, predictions their
# argmax; two classes: one ±1 column (larger label +1), predictions its sign.
import json, math, resource, sys, time, warnings

import numpy as np
from sklearn.datasets import load_svmlight_files


def maxrss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def blas_note():
    try:
        from threadpoolctl import threadpool_info
        libs = [i for i in threadpool_info() if i.get("user_api") == "blas"]
        return "; ".join("%s %s (%s, %d threads)" % (i.get("internal_api"), i.get("version"), i.get("architecture"), i.get("num_threads", 0)) for i in libs)
    except Exception:
        return "threadpoolctl unavailable (see numpy.show_config())"


method, train, test = sys.argv[1], sys.argv[2], sys.argv[3]
dim, m, gamma, lam = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
iters, seed, maxmem = int(sys.argv[8]), int(sys.argv[9]), float(sys.argv[10])
# The index base as Landmark reads it (bench sparse -zero-based), never
# scikit-learn's "auto" guess.
zero_based = len(sys.argv) > 11 and sys.argv[11] == "true"

kw = {"n_features": dim} if dim > 0 else {}
dtype = np.float32 if method == "falkon" else np.float64
xtr, ytr, xte, yte = load_svmlight_files([train, test], dtype=dtype, zero_based=zero_based, **kw)
xtr, xte = xtr.tocsr(), xte.tocsr()
classes = np.unique(ytr)
if len(classes) < 2:
    sys.exit("bench sparse: the training file has fewer than two classes")
binary = len(classes) == 2


def targets(y):
    if binary:
        return np.where(y == classes[-1], 1.0, -1.0).reshape(-1, 1)
    return np.where(y[:, None] == classes[None, :], 1.0, -1.0)


def labels(dec):
    dec = np.asarray(dec).reshape(len(yte), -1)
    if binary:
        return np.where(dec[:, 0] > 0, classes[-1], classes[0])
    return classes[np.argmax(dec, axis=1)]


rss0 = maxrss()
note = ""
if method == "sklearn":
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import RidgeClassifier
    print("bench sparse: scikit-learn BLAS: " + blas_note(), file=sys.stderr, flush=True)
    t0, c0 = time.perf_counter(), time.process_time()
    ny = Nystroem(kernel="rbf", gamma=gamma, n_components=m, random_state=seed)
    feats = ny.fit_transform(xtr)
    # Ridge minimizes ‖y − Fw‖² + α‖w‖²; Falkon (1/n)‖y − K_nM a‖² + λ aᵀK_MM a,
    # and F = K_nM K_MM^(-1/2), w = K_MM^(1/2) a: α = λn.
    rc = RidgeClassifier(alpha=lam * xtr.shape[0], fit_intercept=False)
    rc.fit(feats, ytr)
    fit, cpu = time.perf_counter() - t0, time.process_time() - c0
    del feats
    t1 = time.perf_counter()
    pred = rc.predict(ny.transform(xte))
    predict = time.perf_counter() - t1
    note = "sklearn %s, BLAS %s" % (__import__("sklearn").__version__, blas_note())
elif method == "falkon":
    import torch
    import falkon
    from falkon.sparse import SparseTensor
    torch.set_num_threads(2)
    cap = [l.strip(" -") for l in torch.__config__.show().splitlines() if "CPU capability" in l]
    note = "FALKON %s, torch %s, %s, BLAS %s" % (falkon.__version__, torch.__version__, cap[0] if cap else "CPU capability unknown", blas_note())
    print("bench sparse: FALKON kernels: " + note, file=sys.stderr, flush=True)
    opt = falkon.FalkonOptions(use_cpu=True, keops_active="no", max_cpu_mem=maxmem * 1e9)
    kern = falkon.kernels.GaussianKernel(sigma=math.sqrt(1.0 / (2.0 * gamma)), opt=opt)
    mdl = falkon.Falkon(kernel=kern, penalty=lam, M=m, maxiter=iters, seed=seed, options=opt)
    xs, xt = SparseTensor.from_scipy(xtr), SparseTensor.from_scipy(xte)
    y = torch.from_numpy(targets(ytr).astype(np.float32))
    rss0 = maxrss()
    # Without MKL, FALKON warns at every sparse product that it uses scipy's:
    # recorded, and said once in the note.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0, c0 = time.perf_counter(), time.process_time()
        mdl.fit(xs, y)
        fit, cpu = time.perf_counter() - t0, time.process_time() - c0
        t1 = time.perf_counter()
        pred = labels(mdl.predict(xt).numpy())
        predict = time.perf_counter() - t1
    if any("MKL" in str(w.message) for w in caught):
        note += "; no MKL: FALKON's sparse products ran on scipy (its fallback)"
else:
    sys.exit("bench sparse: unknown method %r (want sklearn or falkon)" % method)

print(json.dumps({"method": method, "fit_s": fit, "fit_cpu_s": cpu, "predict_s": predict,
                  "accuracy": float(np.mean(pred == yte)), "rss_bytes": maxrss(), "data_rss_bytes": rss0,
                  "ntrain": xtr.shape[0], "ntest": xte.shape[0], "d": xtr.shape[1], "nnz": int(xtr.nnz),
                  "classes": len(classes), "note": note}))

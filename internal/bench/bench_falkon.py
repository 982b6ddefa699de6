# Side-by-side baseline for `landmark bench falkon`: scikit-learn's
# Nystroem(n_components=M) + Ridge(alpha=lambda*n) on the arrays the Go side
# prepared (raw little-endian float64 files), printing one JSON line. A
# multi-class set (meta.json lists "classes") gets one-vs-all ±1 columns,
# solved together, and the class of the largest output.
import json, resource, sys, time

import numpy as np
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import Ridge

d, m, gamma, lam, task, seed = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], int(sys.argv[6])
meta = json.load(open(d + "/meta.json"))
ntr, nte, dim = meta["ntrain"], meta["ntest"], meta["d"]
xtr = np.fromfile(d + "/xtr.f64", dtype="<f8").reshape(ntr, dim)
ytr = np.fromfile(d + "/ytr.f64", dtype="<f8")
xte = np.fromfile(d + "/xte.f64", dtype="<f8").reshape(nte, dim)
yte = np.fromfile(d + "/yte.f64", dtype="<f8")
classes = np.array(meta.get("classes") or [], dtype=np.float64)
if len(classes) > 2:
    ytr = np.where(ytr[:, None] == classes[None, :], 1.0, -1.0)
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

t0 = time.perf_counter()
ny = Nystroem(kernel="rbf", gamma=gamma, n_components=m, random_state=seed)
ftr = ny.fit_transform(xtr)
ridge = Ridge(alpha=lam * ntr, fit_intercept=False)
ridge.fit(ftr, ytr)
fit = time.perf_counter() - t0
del ftr
t1 = time.perf_counter()
pred = ridge.predict(ny.transform(xte))
predict = time.perf_counter() - t1
if len(classes) > 2:
    err = float(np.mean(classes[np.argmax(pred, axis=1)] != yte))
elif task == "regression":
    err = float(np.sqrt(np.mean((pred * meta["ysd"] + meta["ymean"] - yte) ** 2)))
else:
    err = float(np.mean(np.where(pred > 0, 1.0, -1.0) != yte))
print(json.dumps({"fit_s": fit, "predict_s": predict, "error": err,
                  "rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "data_rss_bytes": rss0}))

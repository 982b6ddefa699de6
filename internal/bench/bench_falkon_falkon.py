# FALKON baseline of `landmark bench falkon -baseline falkon` for multi-class
# sets (meta.json lists "classes"): FALKON (CPU, float32 unless
# FALKON_DTYPE=float64, FALKON_ITERS CG iterations, default 10, max_cpu_mem
# 2e9, 2 threads: the settings of ../shared/tools/falkon_same_arrays.py) on
# the arrays the Go side wrote, with one-vs-all ±1 target columns fitted
# together and the class of the largest output predicted. Binary and
# regression sets work too (one output, sign or value). Arguments:
# [-c IGNORED] DIR M GAMMA LAMBDA TASK SEED; prints one JSON line.
import json, math, os, resource, sys, time

import numpy as np
import torch, falkon

argv = sys.argv[1:]
if argv and argv[0] == "-c":
    argv = argv[2:]
d, m, gamma, lam, task, seed = argv[0], int(argv[1]), float(argv[2]), float(argv[3]), argv[4], int(argv[5])
dtype = np.float64 if os.environ.get("FALKON_DTYPE") == "float64" else np.float32
iters = int(os.environ.get("FALKON_ITERS", "10"))
meta = json.load(open(d + "/meta.json"))
ntr, nte, dim = meta["ntrain"], meta["ntest"], meta["d"]
classes = np.array(meta.get("classes") or [], dtype=np.float64)
xtr = np.fromfile(d + "/xtr.f64", dtype="<f8").reshape(ntr, dim).astype(dtype)
ylab = np.fromfile(d + "/ytr.f64", dtype="<f8")
xte = np.fromfile(d + "/xte.f64", dtype="<f8").reshape(nte, dim).astype(dtype)
yte = np.fromfile(d + "/yte.f64", dtype="<f8")
if len(classes) > 2:
    ytr = np.where(ylab[:, None] == classes[None, :], 1.0, -1.0).astype(dtype)
else:
    ytr = ylab.astype(dtype).reshape(-1, 1)
del ylab
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
torch.set_num_threads(2)
opt = falkon.FalkonOptions(use_cpu=True, keops_active="no", max_cpu_mem=2e9)
kern = falkon.kernels.GaussianKernel(sigma=math.sqrt(0.5 / gamma), opt=opt)
est = falkon.Falkon(kernel=kern, penalty=lam, M=m, maxiter=iters, seed=seed, options=opt)
t0 = time.perf_counter()
est.fit(torch.from_numpy(xtr), torch.from_numpy(ytr))
fit = time.perf_counter() - t0
t1 = time.perf_counter()
out = est.predict(torch.from_numpy(xte)).numpy().astype(np.float64)
predict = time.perf_counter() - t1
if len(classes) > 2:
    err = float(np.mean(classes[np.argmax(out, axis=1)] != yte))
elif task == "regression":
    err = float(np.sqrt(np.mean((out.ravel() * meta["ysd"] + meta["ymean"] - yte) ** 2)))
else:
    err = float(np.mean(np.where(out.ravel() > 0, 1.0, -1.0) != yte))
print(json.dumps({"fit_s": fit, "predict_s": predict, "error": err,
                  "rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "data_rss_bytes": rss0}))

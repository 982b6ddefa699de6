# Which BLAS and CPU kernels the Python baselines of "landmark bench" run on.
# Run with the baseline's interpreter and environment, before its timings:
#   python3 -c SCRIPT MODULE...   (MODULE: numpy, scipy, sklearn, torch)
# Imports the modules (so that threadpoolctl sees the BLAS libraries they
# load) and prints one JSON object: the versions, numpy's build-time BLAS
# (numpy.show_config), the BLAS libraries loaded with the kernel each chose
# (threadpoolctl), torch's CPU capability and BLAS build setting, and the
# import errors, if any.
import contextlib, io, json, sys

out = {"python": sys.version.split()[0], "errors": []}
mods = {}
for name in sys.argv[1:]:
    try:
        mods[name] = __import__(name)
        if name == "scipy":
            import scipy.linalg  # loads scipy's BLAS/LAPACK
        out[name] = str(getattr(mods[name], "__version__", "?"))
    except Exception as e:
        out["errors"].append("import %s: %s: %s" % (name, type(e).__name__, e))


def numpy_blas(np):
    # numpy >= 1.26: show_config(mode="dicts"); older numpy: the *_info dicts
    # of numpy.__config__, else the text show_config prints.
    try:
        cfg = np.show_config(mode="dicts")
        b = cfg.get("Build Dependencies", {}).get("blas", {})
        s = " ".join(str(b[k]) for k in ("name", "version") if b.get(k))
        if b.get("openblas configuration"):
            s += " (" + str(b["openblas configuration"]) + ")"
        return s
    except TypeError:
        pass
    for key in ("blas_ilp64_opt_info", "blas_opt_info", "openblas_info", "blas_mkl_info", "blis_info"):
        info = getattr(np.__config__, key, None)
        if isinstance(info, dict) and info.get("libraries"):
            return "%s: libraries %s in %s" % (key, ",".join(dict.fromkeys(info["libraries"])), ",".join(info.get("library_dirs", [])))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        np.show_config()
    lines = [l.strip() for l in buf.getvalue().splitlines() if "blas" in l.lower() or "libraries" in l]
    return "; ".join(lines[:4])


if "numpy" in mods:
    try:
        out["numpy_blas"] = numpy_blas(mods["numpy"])
    except Exception as e:
        out["errors"].append("numpy.show_config: %s: %s" % (type(e).__name__, e))
try:
    from threadpoolctl import threadpool_info
    out["blas"] = [{k: i.get(k) for k in ("internal_api", "version", "architecture", "num_threads", "filepath")}
                   for i in threadpool_info() if i.get("user_api") == "blas"]
except Exception as e:
    out["errors"].append("threadpoolctl: %s: %s" % (type(e).__name__, e))
if "torch" in mods:
    torch = mods["torch"]
    try:
        out["torch_capability"] = torch.backends.cpu.get_cpu_capability()
    except Exception:
        pass
    try:
        show = torch.__config__.show()
        for l in show.splitlines():
            if "CPU capability usage:" in l and "torch_capability" not in out:
                out["torch_capability"] = l.split(":", 1)[1].strip()
        for part in show.replace("\n", ",").split(","):
            k, _, v = part.strip().partition("=")
            k = k.split()[-1] if k.split() else ""
            if k in ("BLAS_INFO", "LAPACK_INFO"):
                out["torch_" + k.lower()] = v
    except Exception as e:
        out["errors"].append("torch.__config__: %s: %s" % (type(e).__name__, e))
print(json.dumps(out))

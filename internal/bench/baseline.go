package bench

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// The Python baselines' kernels (issue 25): OPENBLAS_CORETYPE=Haswell on an
// AVX-512 CPU makes numpy, scipy and torch run OpenBLAS's AVX2 kernels, which
// cost the baselines about 40% of their GEMM rate on the development host.
// Every bench that runs Python therefore prints what the baseline's BLAS and
// torch chose, and warns when the environment or the BLAS build holds them
// below the CPU.

//go:embed bench_baseline.py
var benchBaselinePy string

// isa is an x86-64 SIMD level, ordered.
type isa int

const (
	isaUnknown isa = iota
	isaSSE
	isaAVX
	isaAVX2
	isaAVX512
)

func (i isa) String() string { return [...]string{"unknown", "SSE", "AVX", "AVX2", "AVX-512"}[i] }

// openblasTargets maps OpenBLAS's x86-64 core names (OPENBLAS_CORETYPE values
// and threadpoolctl's "architecture", compared case-insensitively) to the
// instruction set their kernels use.
var openblasTargets = map[string]isa{
	"katmai": isaSSE, "coppermine": isaSSE, "northwood": isaSSE, "prescott": isaSSE, "banias": isaSSE,
	"atom": isaSSE, "core2": isaSSE, "penryn": isaSSE, "dunnington": isaSSE, "nehalem": isaSSE,
	"athlon": isaSSE, "opteron": isaSSE, "opteron_sse3": isaSSE, "barcelona": isaSSE, "nano": isaSSE, "bobcat": isaSSE,
	"sandybridge": isaAVX, "bulldozer": isaAVX, "piledriver": isaAVX, "steamroller": isaAVX,
	"haswell": isaAVX2, "zen": isaAVX2, "excavator": isaAVX2,
	"skylakex": isaAVX512, "cooperlake": isaAVX512, "sapphirerapids": isaAVX512,
}

// torchISA maps torch's CPU capability (torch.backends.cpu.get_cpu_capability
// or the "CPU capability usage" line of torch.__config__.show()).
func torchISA(c string) isa {
	switch strings.ToUpper(c) {
	case "AVX512":
		return isaAVX512
	case "AVX2":
		return isaAVX2
	case "DEFAULT":
		return isaSSE
	}
	return isaUnknown
}

// cpuISA is the widest SIMD level /proc/cpuinfo's flags list (isaUnknown
// where the file does not exist).
func cpuISA() isa {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return isaUnknown
	}
	defer f.Close()
	return cpuISAFrom(f)
}

// cpuISAFrom reads the first "flags" line of a /proc/cpuinfo text.
func cpuISAFrom(r io.Reader) isa {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(k) != "flags" {
			continue
		}
		has := map[string]bool{}
		for _, f := range strings.Fields(v) {
			has[f] = true
		}
		switch {
		case has["avx512f"]:
			return isaAVX512
		case has["avx2"] && has["fma"]:
			return isaAVX2
		case has["avx"]:
			return isaAVX
		}
		return isaSSE
	}
	return isaUnknown
}

// baselineBLAS is one BLAS library threadpoolctl found loaded.
type baselineBLAS struct {
	InternalAPI  string `json:"internal_api"`
	Version      string `json:"version"`
	Architecture string `json:"architecture"`
	NumThreads   int    `json:"num_threads"`
	Filepath     string `json:"filepath"`
}

// baselineInfo is bench_baseline.py's output.
type baselineInfo struct {
	Python          string         `json:"python"`
	Numpy           string         `json:"numpy"`
	Scipy           string         `json:"scipy"`
	Sklearn         string         `json:"sklearn"`
	Torch           string         `json:"torch"`
	NumpyBLAS       string         `json:"numpy_blas"`
	BLAS            []baselineBLAS `json:"blas"`
	TorchCapability string         `json:"torch_capability"`
	TorchBLAS       string         `json:"torch_blas_info"`
	TorchLAPACK     string         `json:"torch_lapack_info"`
	Errors          []string       `json:"errors"`
}

// probeBaseline runs bench_baseline.py with py in env (nil: this process's)
// importing modules, and parses its JSON line.
func probeBaseline(ctx context.Context, py string, env []string, modules ...string) (baselineInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, append([]string{"-c", benchBaselinePy}, modules...)...)
	cmd.Env = env
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		if l := lastLine(se.String()); l != "" {
			return baselineInfo{}, fmt.Errorf("%w: %s", err, l)
		}
		return baselineInfo{}, err
	}
	var info baselineInfo
	if err := json.Unmarshal([]byte(lastLine(so.String())), &info); err != nil {
		return baselineInfo{}, fmt.Errorf("%s printed no kernel report (%q): %w", py, lastLine(so.String()), err)
	}
	return info, nil
}

// envLookup returns the value of key in env (the last one, as exec uses),
// or this process's environment when env is nil.
func envLookup(env []string, key string) (string, bool) {
	if env == nil {
		return os.LookupEnv(key)
	}
	v, ok := "", false
	for _, kv := range env {
		if k, val, _ := strings.Cut(kv, "="); k == key {
			v, ok = val, true
		}
	}
	return v, ok
}

// baselineReport is what a bench prints about its Python baselines: lines
// of information and warnings (each without a prefix).
type baselineReport struct {
	lines, warnings []string
}

// nativeCommand is the advice the warnings give for the target.
func nativeCommand(target string) string {
	return "run `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE landmark bench " + target + " …` for the native kernels"
}

// baselineReportOf describes info (or probeErr) and checks, against the
// CPU's level cpu, the OpenBLAS kernel forced by OPENBLAS_CORETYPE in env,
// the kernels the loaded BLAS libraries chose and torch's CPU capability.
func baselineReportOf(target string, info baselineInfo, probeErr error, env []string, cpu isa) baselineReport {
	var r baselineReport
	line := func(format string, a ...any) { r.lines = append(r.lines, fmt.Sprintf(format, a...)) }
	warn := func(format string, a ...any) { r.warnings = append(r.warnings, fmt.Sprintf(format, a...)) }
	forced := false
	if ct, ok := envLookup(env, "OPENBLAS_CORETYPE"); ok && ct != "" {
		level, known := openblasTargets[strings.ToLower(strings.TrimSpace(ct))]
		switch {
		case !known:
			line("OPENBLAS_CORETYPE=%s is set (not an x86-64 OpenBLAS target this check knows)", ct)
		case cpu == isaUnknown:
			line("OPENBLAS_CORETYPE=%s forces OpenBLAS's %s kernels (the CPU's SIMD level is unknown here)", ct, level.String())
		case level < cpu:
			forced = true
			warn("OPENBLAS_CORETYPE=%s forces OpenBLAS's %s kernels on a CPU with %s: the baselines run handicapped; %s", ct, ct+" ("+level.String()+")", cpu, nativeCommand(target))
		default:
			line("OPENBLAS_CORETYPE=%s (%s kernels, the CPU's level)", ct, level)
		}
	}
	if l2, ok := envLookup(env, "OPENBLAS_L2_SIZE"); ok && l2 != "" {
		line("OPENBLAS_L2_SIZE=%s overrides OpenBLAS's cache-size detection", l2)
	}
	if probeErr != nil {
		line("baseline kernels unknown: %v", probeErr)
		return r
	}
	var mods []string
	for _, m := range []struct{ name, v string }{{"numpy", info.Numpy}, {"scipy", info.Scipy}, {"scikit-learn", info.Sklearn}, {"torch", info.Torch}} {
		if m.v != "" {
			mods = append(mods, m.name+" "+m.v)
		}
	}
	if len(mods) == 0 {
		mods = []string{"no baseline module imported"}
	}
	line("baseline Python %s: %s", info.Python, strings.Join(mods, ", "))
	if len(info.BLAS) == 0 {
		line("baseline BLAS loaded: none reported (threadpoolctl missing or no BLAS loaded)")
	}
	for _, b := range info.BLAS {
		level := openblasTargets[strings.ToLower(b.Architecture)]
		kind := b.Architecture
		if level != isaUnknown {
			kind += " (" + level.String() + ")"
		}
		line("baseline BLAS loaded (threadpoolctl): %s %s, %s kernels, %d threads, %s", b.InternalAPI, b.Version, kind, b.NumThreads, b.Filepath)
		if b.InternalAPI == "openblas" && level != isaUnknown && cpu != isaUnknown && level < cpu && !forced {
			warn("%s %s runs its %s (%s) kernels on a CPU with %s (OPENBLAS_CORETYPE does not force it: this build does not know the CPU): the baselines run below the CPU's rate", b.InternalAPI, b.Version, b.Architecture, level, cpu)
		}
	}
	if info.NumpyBLAS != "" {
		line("baseline numpy build BLAS (numpy.show_config): %s", info.NumpyBLAS)
	}
	if info.Torch != "" {
		line("baseline torch: CPU capability %s, BLAS_INFO=%s, LAPACK_INFO=%s (torch.__config__)", cmp.Or(info.TorchCapability, "unknown"), cmp.Or(info.TorchBLAS, "?"), cmp.Or(info.TorchLAPACK, "?"))
		if level := torchISA(info.TorchCapability); level != isaUnknown && cpu != isaUnknown && level < cpu {
			if v, ok := envLookup(env, "ATEN_CPU_CAPABILITY"); ok && v != "" {
				warn("ATEN_CPU_CAPABILITY=%s holds torch's vectorized kernels at %s on a CPU with %s: the baseline runs handicapped", v, level, cpu)
			} else {
				line("torch's vectorized kernels run at %s on this %s CPU (this torch build's default; ATEN_CPU_CAPABILITY=avx512 raises it)", level, cpu)
			}
		}
	}
	for _, e := range info.Errors {
		line("baseline probe: %s", e)
	}
	return r
}

// baselineLines probes the baseline's interpreter py (in env; nil: this
// process's) with modules imported and returns the report's lines for
// stdout, warnings starting "warning: ". Each warning is also printed on
// stderr at once, before the long runs start.
func baselineLines(ctx context.Context, stderr io.Writer, target, py string, env []string, modules ...string) []string {
	info, err := probeBaseline(ctx, py, env, modules...)
	r := baselineReportOf(target, info, err, env, cpuISA())
	out := r.lines
	for _, w := range r.warnings {
		out = append(out, "warning: "+w)
		fmt.Fprintf(stderr, "bench %s: warning: %s\n", target, w)
	}
	return out
}

// printLines prints each line with prefix.
func printLines(w io.Writer, prefix string, lines []string) {
	for _, l := range lines {
		fmt.Fprintf(w, "%s%s\n", prefix, l)
	}
}

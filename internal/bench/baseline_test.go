package bench

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCPUISAFrom(t *testing.T) {
	for _, c := range []struct {
		text string
		want isa
	}{
		{"processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma avx512f avx512bw\n", isaAVX512},
		{"flags : fpu sse2 avx fma avx2\n", isaAVX2},
		{"flags : fpu sse2 avx avx2\n", isaAVX}, // AVX2 without FMA: the AVX2 kernels need both
		{"flags : fpu sse2 sse4_2\n", isaSSE},
		{"processor : 0\nmodel name : x\n", isaUnknown},
	} {
		if got := cpuISAFrom(strings.NewReader(c.text)); got != c.want {
			t.Errorf("%q: %v, want %v", c.text, got, c.want)
		}
	}
}

// TestBaselineReport checks the warnings against the rules: a forced
// OpenBLAS kernel (any case) older than the CPU warns once, naming the
// command with native kernels; one at the CPU's level or on an unknown CPU
// does not; OpenBLAS choosing an older kernel by itself warns; torch below
// the CPU is a note by default and a warning when ATEN_CPU_CAPABILITY holds
// it there; a failed probe still reports the environment.
func TestBaselineReport(t *testing.T) {
	native := baselineInfo{Python: "3.11.2", Numpy: "1.24.2", Sklearn: "1.2.1", NumpyBLAS: "blas_opt_info: libraries blas",
		BLAS: []baselineBLAS{{InternalAPI: "openblas", Version: "0.3.21", Architecture: "Cooperlake", NumThreads: 2, Filepath: "/lib/libopenblas.so"}}}
	haswell := native
	haswell.BLAS = []baselineBLAS{{InternalAPI: "openblas", Version: "0.3.21", Architecture: "Haswell", NumThreads: 2}}
	torch := native
	torch.Torch, torch.TorchCapability, torch.TorchBLAS, torch.TorchLAPACK = "1.13.0", "AVX2", "generic", "generic"
	const native2 = "env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE landmark bench kernel"
	for _, c := range []struct {
		name     string
		info     baselineInfo
		probeErr error
		env      []string
		cpu      isa
		warns    []string // substrings, one per warning, in order
		lines    []string // substrings that some line must hold
	}{
		{"native", native, nil, []string{"HOME=/h"}, isaAVX512, nil,
			[]string{"baseline Python 3.11.2: numpy 1.24.2, scikit-learn 1.2.1", "openblas 0.3.21, Cooperlake (AVX-512) kernels, 2 threads, /lib/libopenblas.so", "numpy.show_config): blas_opt_info"}},
		{"forced Haswell", haswell, nil, []string{"OPENBLAS_CORETYPE=Haswell", "OPENBLAS_L2_SIZE=1048576"}, isaAVX512,
			[]string{"OPENBLAS_CORETYPE=Haswell forces OpenBLAS's Haswell (AVX2) kernels on a CPU with AVX-512: the baselines run handicapped; run `" + native2},
			[]string{"OPENBLAS_L2_SIZE=1048576 overrides", "Haswell (AVX2) kernels"}},
		{"forced, lower case, last value wins", haswell, nil, []string{"OPENBLAS_CORETYPE=SkylakeX", "OPENBLAS_CORETYPE=sandybridge"}, isaAVX2,
			[]string{"OPENBLAS_CORETYPE=sandybridge forces OpenBLAS's sandybridge (AVX) kernels on a CPU with AVX2"}, nil},
		{"forced at the CPU's level", haswell, nil, []string{"OPENBLAS_CORETYPE=Haswell"}, isaAVX2, nil,
			[]string{"OPENBLAS_CORETYPE=Haswell (AVX2 kernels, the CPU's level)"}},
		{"unknown CPU", haswell, nil, []string{"OPENBLAS_CORETYPE=Haswell"}, isaUnknown, nil,
			[]string{"forces OpenBLAS's AVX2 kernels (the CPU's SIMD level is unknown here)"}},
		{"unknown target", native, nil, []string{"OPENBLAS_CORETYPE=Pentium9"}, isaAVX512, nil,
			[]string{"OPENBLAS_CORETYPE=Pentium9 is set (not an x86-64 OpenBLAS target this check knows)"}},
		{"OpenBLAS's own old choice", haswell, nil, nil, isaAVX512,
			[]string{"openblas 0.3.21 runs its Haswell (AVX2) kernels on a CPU with AVX-512 (OPENBLAS_CORETYPE does not force it"}, nil},
		{"probe failed", baselineInfo{}, errors.New("exit status 1: ModuleNotFoundError: No module named 'numpy'"), []string{"OPENBLAS_CORETYPE=Haswell"}, isaAVX512,
			[]string{"OPENBLAS_CORETYPE=Haswell forces"}, []string{"baseline kernels unknown: exit status 1: ModuleNotFoundError"}},
		{"torch default below the CPU", torch, nil, nil, isaAVX512, nil,
			[]string{"baseline torch: CPU capability AVX2, BLAS_INFO=generic, LAPACK_INFO=generic", "torch's vectorized kernels run at AVX2 on this AVX-512 CPU (this torch build's default; ATEN_CPU_CAPABILITY=avx512 raises it)"}},
		{"torch held by ATEN_CPU_CAPABILITY", torch, nil, []string{"ATEN_CPU_CAPABILITY=avx2"}, isaAVX512,
			[]string{"ATEN_CPU_CAPABILITY=avx2 holds torch's vectorized kernels at AVX2 on a CPU with AVX-512"}, nil},
		{"torch at the CPU's level", torch, nil, nil, isaAVX2, nil, []string{"CPU capability AVX2"}},
		{"probe errors listed", baselineInfo{Python: "3.9", Errors: []string{"threadpoolctl: ModuleNotFoundError"}}, nil, nil, isaAVX2, nil,
			[]string{"baseline Python 3.9: no baseline module imported", "none reported", "baseline probe: threadpoolctl: ModuleNotFoundError"}},
	} {
		env := c.env
		if env == nil {
			env = []string{}
		}
		r := baselineReportOf("kernel", c.info, c.probeErr, env, c.cpu)
		if len(r.warnings) != len(c.warns) {
			t.Errorf("%s: warnings %q, want %d", c.name, r.warnings, len(c.warns))
		}
		for i := range min(len(r.warnings), len(c.warns)) {
			if !strings.Contains(r.warnings[i], c.warns[i]) {
				t.Errorf("%s: warning %q lacks %q", c.name, r.warnings[i], c.warns[i])
			}
		}
		all := strings.Join(r.lines, "\n")
		for _, l := range c.lines {
			if !strings.Contains(all, l) {
				t.Errorf("%s: lines lack %q:\n%s", c.name, l, all)
			}
		}
		if c.name == "torch at the CPU's level" && strings.Contains(all, "vectorized kernels run at") {
			t.Errorf("%s: a note for torch at the CPU's level:\n%s", c.name, all)
		}
	}
	// A nil environment is this process's.
	t.Setenv("OPENBLAS_CORETYPE", "Sandybridge")
	if r := baselineReportOf("linalg", native, nil, nil, isaAVX2); len(r.warnings) != 1 || !strings.Contains(r.warnings[0], "OPENBLAS_CORETYPE=Sandybridge forces") || !strings.Contains(r.warnings[0], "landmark bench linalg") {
		t.Errorf("nil env: warnings %q", r.warnings)
	}
}

// TestBaselineLinesStandIn runs the probe through a stand-in interpreter (a
// shell script recording its arguments and printing a fixed report): the
// probe gets "-c SCRIPT MODULES…" in the given environment, and the
// warning goes both into the lines and, at once, to stderr.
func TestBaselineLinesStandIn(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "python")
	body := "#!/bin/sh\nprintf '%s\\n' \"$1\" \"$3\" \"$4\" \"$OPENBLAS_CORETYPE\" > " + dir + "/args\nprintf '%s' \"$2\" > " + dir + "/script\n" +
		`echo '{"python":"3.0","numpy":"9.9","blas":[{"internal_api":"openblas","version":"0.3.1","architecture":"Haswell","num_threads":3,"filepath":"/x.so"}]}'` + "\n"
	if err := os.WriteFile(fake, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	lines := baselineLines(t.Context(), &stderr, "sparse", fake, []string{"OPENBLAS_CORETYPE=Haswell"}, "numpy", "scipy")
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	script, _ := os.ReadFile(filepath.Join(dir, "script"))
	if string(args) != "-c\nnumpy\nscipy\nHaswell\n" || string(script) != benchBaselinePy {
		t.Errorf("stand-in got args %q and %d script bytes", args, len(script))
	}
	all := strings.Join(lines, "\n")
	if !strings.Contains(all, "baseline Python 3.0: numpy 9.9") || !strings.Contains(all, "openblas 0.3.1, Haswell (AVX2) kernels, 3 threads, /x.so") {
		t.Errorf("lines:\n%s", all)
	}
	if cpuISA() > isaAVX2 {
		if !strings.Contains(all, "\nwarning: OPENBLAS_CORETYPE=Haswell forces") || !strings.HasPrefix(stderr.String(), "bench sparse: warning: OPENBLAS_CORETYPE=Haswell forces") {
			t.Errorf("on this %v CPU want the warning in the lines and on stderr:\n%s\nstderr %q", cpuISA(), all, stderr.String())
		}
	}
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("#!/bin/sh\necho not json\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// This process's environment (nil) may hold OPENBLAS_* variables, whose
	// notes and warnings come after the line looked for here.
	unknown := func(l string) bool {
		return strings.Contains(l, "baseline kernels unknown: ") && strings.Contains(l, "printed no kernel report")
	}
	if lines := baselineLines(t.Context(), &stderr, "kernel", bad, nil, "numpy"); !slices.ContainsFunc(lines, unknown) {
		t.Errorf("bad probe: %q", lines)
	}
}

// TestBaselineProbePython runs bench_baseline.py itself when /usr/bin/python3
// has numpy: numpy's version and build BLAS are read, and with threadpoolctl
// the loaded BLAS is listed; OPENBLAS_CORETYPE=Sandybridge (a target every
// x86-64 DYNAMIC_ARCH OpenBLAS has) changes the kernel threadpoolctl reports,
// so the environment reaches the baseline. With torch, its capability is one
// of the x86 values.
func TestBaselineProbePython(t *testing.T) {
	const py = "/usr/bin/python3"
	if exec.Command(py, "-c", "import numpy").Run() != nil {
		t.Skip("no " + py + " with numpy")
	}
	info, err := probeBaseline(t.Context(), py, nil, "numpy")
	if err != nil {
		t.Fatal(err)
	}
	if info.Python == "" || info.Numpy == "" || info.NumpyBLAS == "" || len(info.Errors) > 0 && exec.Command(py, "-c", "import threadpoolctl").Run() == nil {
		t.Fatalf("probe: %+v", info)
	}
	if len(info.BLAS) == 0 || info.BLAS[0].InternalAPI != "openblas" {
		t.Logf("no OpenBLAS seen by threadpoolctl (%+v): the coretype check is not run", info.BLAS)
	} else {
		forced, err := probeBaseline(t.Context(), py, append(os.Environ(), "OPENBLAS_CORETYPE=Sandybridge"), "numpy")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("OpenBLAS %s: native %s, forced %s", info.BLAS[0].Version, info.BLAS[0].Architecture, forced.BLAS[0].Architecture)
		if !strings.EqualFold(forced.BLAS[0].Architecture, "Sandybridge") && info.BLAS[0].Architecture != forced.BLAS[0].Architecture {
			t.Errorf("OPENBLAS_CORETYPE=Sandybridge: threadpoolctl reports %q", forced.BLAS[0].Architecture)
		}
	}
	if !testing.Short() && exec.Command(py, "-c", "import torch").Run() == nil {
		info, err := probeBaseline(t.Context(), py, nil, "numpy", "torch")
		if err != nil {
			t.Fatal(err)
		}
		if torchISA(info.TorchCapability) == isaUnknown || info.Torch == "" {
			t.Errorf("torch %q capability %q", info.Torch, info.TorchCapability)
		}
	}
}

// TestBenchBaselineReported runs bench linalg and bench falkon with a
// stand-in Python (a shell script answering the probe with an OpenBLAS on
// Haswell kernels and the baselines with fixed timings) under
// OPENBLAS_CORETYPE=Haswell: each prints the probe's lines before its table
// (falkon as a Markdown list) and, on a CPU above AVX2, the warning naming
// its own command with native kernels, on stdout and stderr.
func TestBenchBaselineReported(t *testing.T) {
	data, err := filepath.Abs(filepath.Join("..", "..", "datasets", "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(testMainEnv, "1")
	t.Setenv("LANDMARK_SHARED_DATA", data)
	t.Setenv("OPENBLAS_CORETYPE", "Haswell")
	fake := filepath.Join(t.TempDir(), "python")
	body := `#!/bin/sh
if [ "$1" = "-c" ] && [ "$3" = "numpy" ]; then
  echo '{"python":"3.0","numpy":"9.9","blas":[{"internal_api":"openblas","version":"0.3.1","architecture":"Haswell","num_threads":3,"filepath":"/x.so"}]}'
elif [ "$1" = "-c" ]; then
  echo '{"fit_s":1,"predict_s":0.5,"error":0.25,"rss_bytes":1000000000,"data_rss_bytes":500000}'
else
  echo '{"what":"potrf","seconds":0.5}'; echo '{"what":"lauum","seconds":0.5}'; echo '{"what":"trsm","seconds":0.5}'
fi
`
	if err := os.WriteFile(fake, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		target       string
		args         []string
		prefix, want string // line prefix of the report; a line of the baseline's result
	}{
		{"linalg", []string{"linalg", "-m", "40", "-rhs", "3", "-gonum=false", "-python", fake}, "", "0.500"},
		{"falkon", []string{"falkon", "-data", "cadata", "-train", "300", "-test", "100", "-m", "40", "-iter", "3", "-sklearn-m", "40", "-python", fake, "-progress", "never"},
			"- ", "| scikit-learn Nystroem+Ridge | 40 | 1.0 | 0.5 | 0.25 | 1.00 |"},
	} {
		var so, se bytes.Buffer
		if err := Run(t.Context(), c.args, &so, &se); err != nil {
			t.Fatalf("%s: %v\n%s", c.target, err, se.String())
		}
		out := so.String()
		report := strings.Index(out, "\n"+c.prefix+"baseline Python 3.0: numpy 9.9\n")
		blas := strings.Index(out, "\n"+c.prefix+"baseline BLAS loaded (threadpoolctl): openblas 0.3.1, Haswell (AVX2) kernels, 3 threads, /x.so\n")
		table := strings.Index(out, c.want)
		if !strings.Contains(out, c.prefix+"host: "+cpuModel()+", ") {
			t.Errorf("%s: no host line:\n%s", c.target, out)
		}
		if report < 0 || blas < 0 || table < 0 || table < blas {
			t.Errorf("%s: want the report (at %d, %d) before the baseline's row %q (at %d):\n%s", c.target, report, blas, c.want, table, out)
		}
		if cpuISA() > isaAVX2 {
			w := "warning: OPENBLAS_CORETYPE=Haswell forces OpenBLAS's Haswell (AVX2) kernels on a CPU with " + cpuISA().String() +
				": the baselines run handicapped; run `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE landmark bench " + c.target + " …` for the native kernels"
			if !strings.Contains(out, "\n"+c.prefix+w+"\n") || !strings.Contains(se.String(), "bench "+c.target+": "+w+"\n") {
				t.Errorf("%s: want %q on stdout and stderr:\n%s\nstderr:\n%s", c.target, w, out, se.String())
			}
		}
	}
}

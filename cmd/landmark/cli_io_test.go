//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/experiments"
	"gonum.org/v1/gonum/mat"
)

// The end-to-end table of issue 21's inputs and outputs (items 1 and 3):
// the built landmark binary on real files in a temporary folder, fed
// through pipes, FIFOs, /dev/fd/N (what a shell's <(…) gives) and
// standard input, writing to files, links, FIFOs, devices and stdout. Every
// case asserts the exit code and key words of the messages; every success
// the exact rows written (against the predictions computed in process from
// the saved model, or against the bytes of the same data read from a
// plain file).

// ioFixture holds the data files and models of the input/output cases.
type ioFixture struct {
	dir string
	// ref maps a test-data file to the predictions landmark writes for it
	// with its model: 3,000 lines, checked against in-process predictions.
	ref map[string]string
	// trainLine is fit's "train: …" line on train.csv, the reference for
	// every other spelling of the same 300 rows.
	trainLine string
}

var ioFix struct {
	once sync.Once
	fix  *ioFixture
	err  error
}

// ioRows is the size of the test files: 3,000 rows of about 35 bytes,
// 105 KB, past the 64 KiB the format sniffer looks at (the rows a pipe lost
// before issue 21).
const ioRows = 3000

// ioData draws n rows of 3 features in [0, 1) with a smooth target
// sin(3x₁) + x₂ − x₃, rounded to 6 decimals so that every spelling
// (LIBSVM, CSV, reordered columns) holds the same numbers.
func ioData(n int, rng *rand.Rand) *datasets.Dataset {
	x := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	r6 := func(v float64) float64 { return math.Round(v*1e6) / 1e6 }
	for i := range n {
		for j := range 3 {
			x.Set(i, j, r6(rng.Float64()))
		}
		y[i] = r6(math.Sin(3*x.At(i, 0)) + x.At(i, 1) - x.At(i, 2))
	}
	return &datasets.Dataset{X: x, Y: y, Features: []string{"x1", "x2", "x3"}, Target: "y"}
}

// cli runs the binary in dir with stdin (nil: none) and extra files (fd 3
// onwards) and returns its exit code, stdout and stderr. A run over two
// minutes is killed and fails the test (a hang guard, not a timing check).
func cli(t *testing.T, dir string, stdin io.Reader, extra []*os.File, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, landmarkBin(t), args...)
	cmd.Dir, cmd.Stdin, cmd.ExtraFiles = dir, stdin, extra
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("landmark %s: killed after 2 minutes", strings.Join(args, " "))
	case errors.As(err, &ee):
		return ee.ExitCode(), so.String(), se.String()
	case err != nil:
		t.Fatalf("landmark %s: %v", strings.Join(args, " "), err)
	}
	return 0, so.String(), se.String()
}

// mustCLI is cli that requires exit code 0.
func mustCLI(t *testing.T, dir string, stdin io.Reader, args ...string) (string, string) {
	t.Helper()
	code, so, se := cli(t, dir, stdin, nil, args...)
	if code != 0 {
		t.Fatalf("landmark %s: exit %d\nstderr: %s", strings.Join(args, " "), code, se)
	}
	return so, se
}

// wantFail requires exit code code and every key word in stderr.
func wantFail(t *testing.T, code int, want []string, gotCode int, stderr string) {
	t.Helper()
	if gotCode != code {
		t.Fatalf("exit %d, want %d\nstderr: %s", gotCode, code, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
}

func ioFixtureFor(t *testing.T) *ioFixture {
	t.Helper()
	landmarkBin(t)
	ioFix.once.Do(func() { ioFix.fix, ioFix.err = buildIOFixture(t) })
	if ioFix.err != nil {
		t.Fatal(ioFix.err)
	}
	return ioFix.fix
}

func buildIOFixture(t *testing.T) (*ioFixture, error) {
	dir, err := os.MkdirTemp("", "landmark-cliio-")
	if err != nil {
		return nil, err
	}
	e2eDirs = append(e2eDirs, dir)
	f := &ioFixture{dir: dir, ref: map[string]string{}}
	rng := rand.New(rand.NewPCG(21, 3))
	train, test := ioData(300, rng), ioData(ioRows, rng)
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, w := range []struct {
		name string
		d    *datasets.Dataset
	}{{"train.libsvm", train}, {"train.csv", train}, {"test.libsvm", test}, {"test.csv", test}} {
		if err := datasets.WriteFile(p(w.name), w.d, datasets.WriteOptions{}); err != nil {
			return nil, err
		}
	}
	// Gzip and extensionless spellings of the test files.
	for _, name := range []string{"test.libsvm", "test.csv"} {
		b, err := os.ReadFile(p(name))
		if err != nil {
			return nil, err
		}
		bare := strings.ReplaceAll(name, ".", "_")
		for n, c := range map[string][]byte{name + ".gz": gzipBytes(b), bare: b, bare + "_gz": gzipBytes(b)} {
			if err := os.WriteFile(p(n), c, 0o644); err != nil {
				return nil, err
			}
		}
	}
	fitArgs := []string{"--task", "regression", "--estimator", "krr", "--gamma", "1", "--lambda", "0.001"}
	so, _ := mustCLI(t, dir, nil, append([]string{"fit", "--data", "train.libsvm", "--save", "m.lmk"}, fitArgs...)...)
	_ = so
	so, _ = mustCLI(t, dir, nil, append([]string{"fit", "--data", "train.csv", "--save", "mcsv.lmk"}, fitArgs...)...)
	f.trainLine = lineWith(so, "train:")
	if f.trainLine == "" {
		return nil, fmt.Errorf("fit printed no train line:\n%s", so)
	}
	// The reference predictions, checked against the saved models'
	// predictions computed here.
	for _, c := range []struct{ data, model string }{{"test.libsvm", "m.lmk"}, {"test.csv", "mcsv.lmk"}} {
		so, _ := mustCLI(t, dir, nil, "predict", "--model", c.model, "--data", c.data)
		fit, err := experiments.LoadFitFile(p(c.model))
		if err != nil {
			return nil, err
		}
		pred, err := fit.Predict(test.X)
		if err != nil {
			return nil, err
		}
		var want strings.Builder
		for _, v := range pred {
			want.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + "\n")
		}
		if so != want.String() {
			return nil, fmt.Errorf("predict %s: %d bytes, not the %d of the in-process predictions", c.data, len(so), want.Len())
		}
		f.ref[c.data] = so
	}
	return f, nil
}

// lineWith returns the first line of s that starts with prefix.
func lineWith(s, prefix string) string {
	for l := range strings.Lines(s) {
		if strings.HasPrefix(l, prefix) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// TestCLIInputStreams: predictions from standard input, /dev/stdin, a
// FIFO and /dev/fd/3 (a shell's <(…)), plain and gzip, LIBSVM and CSV,
// names that say the format and names that do not, are byte for byte those
// of the plain file: all 3,000 rows (577 arrived before issue 21).
func TestCLIInputStreams(t *testing.T) {
	fx := ioFixtureFor(t)
	modelOf := map[string]string{"test.libsvm": "m.lmk", "test.csv": "mcsv.lmk"}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(fx.dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, base := range []string{"test.libsvm", "test.csv"} {
		bare := strings.ReplaceAll(base, ".", "_")
		for _, src := range []string{base, base + ".gz"} {
			t.Run("stdin dash "+src, func(t *testing.T) {
				so, _ := mustCLI(t, fx.dir, bytes.NewReader(read(src)), "predict", "--model", modelOf[base], "--data", "-")
				if so != fx.ref[base] {
					t.Fatalf("%d bytes, %d lines; want the file's %d lines", len(so), strings.Count(so, "\n"), ioRows)
				}
			})
		}
		t.Run("dev stdin gzip no extension "+base, func(t *testing.T) {
			so, _ := mustCLI(t, fx.dir, bytes.NewReader(read(bare+"_gz")), "predict", "--model", modelOf[base], "--data", "/dev/stdin")
			if so != fx.ref[base] {
				t.Fatalf("%d lines, want %d", strings.Count(so, "\n"), ioRows)
			}
		})
		t.Run("fifo no extension "+base, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "data")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip(err)
			}
			go func() {
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err == nil {
					w.Write(read(bare))
					w.Close()
				}
			}()
			so, _ := mustCLI(t, fx.dir, nil, "predict", "--model", modelOf[base], "--data", fifo)
			if so != fx.ref[base] {
				t.Fatalf("%d lines, want %d", strings.Count(so, "\n"), ioRows)
			}
		})
		t.Run("dev fd 3 "+base, func(t *testing.T) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			go func() { pw.Write(read(bare)); pw.Close() }()
			code, so, se := cli(t, fx.dir, nil, []*os.File{pr}, "predict", "--model", modelOf[base], "--data", "/dev/fd/3")
			pr.Close()
			if code != 0 || so != fx.ref[base] {
				t.Fatalf("exit %d, %d lines, want 0 and %d\n%s", code, strings.Count(so, "\n"), ioRows, se)
			}
		})
	}
	// fit --data <(…) failed on "line 1": the sniffed bytes were lost to
	// the reopened pipe. Through /dev/fd/3, the fit is the file's.
	for _, name := range []string{"train.libsvm", "train.csv"} {
		t.Run("fit dev fd 3 "+name, func(t *testing.T) {
			pr, pw, _ := os.Pipe()
			b := read(name)
			go func() { pw.Write(b); pw.Close() }()
			code, so, se := cli(t, fx.dir, nil, []*os.File{pr}, "fit", "--data", "/dev/fd/3", "--task", "regression", "--estimator", "krr", "--gamma", "1", "--lambda", "0.001")
			pr.Close()
			if code != 0 || !strings.Contains(so, "on 300 rows × 3 features") || lineWith(so, "train:") != fx.trainLine {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s\nwant the train line %q", code, so, se, fx.trainLine)
			}
		})
	}
}

// writeCSV writes lines (joined by newlines) to name in dir.
func writeText(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// trainCSV returns train.csv's text with delimiter sep and, when header
// is false, without its header; target first when yFirst.
func trainCSV(t *testing.T, fx *ioFixture, sep string, header, yFirst bool) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fx.dir, "train.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if i == 0 && !header {
			continue
		}
		f := strings.Split(l, ",")
		if yFirst {
			f = append([]string{f[len(f)-1]}, f[:len(f)-1]...)
		}
		out.WriteString(strings.Join(f, sep) + "\n")
	}
	return out.String()
}

// TestCLICSVOptions: --delim, --header and --target on fit and run (and in
// YAML), and the auto header guess that no longer swallows a first row of
// data.
func TestCLICSVOptions(t *testing.T) {
	fx := ioFixtureFor(t)
	dir := t.TempDir()
	fitArgs := []string{"--task", "regression", "--estimator", "krr", "--gamma", "1", "--lambda", "0.001"}
	fit := func(extra ...string) (int, string, string) {
		return cli(t, dir, nil, nil, append(append([]string{"fit"}, extra...), fitArgs...)...)
	}
	wantTrain := func(t *testing.T, code int, so, se string) {
		t.Helper()
		if code != 0 || !strings.Contains(so, "on 300 rows × 3 features") || lineWith(so, "train:") != fx.trainLine {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s\nwant 300 rows and %q", code, so, se, fx.trainLine)
		}
	}
	writeText(t, dir, "semi.csv", trainCSV(t, fx, ";", true, false))
	writeText(t, dir, "nohead.csv", trainCSV(t, fx, ",", false, false))
	writeText(t, dir, "yfirst.csv", trainCSV(t, fx, ",", true, true))
	t.Run("delim semicolon", func(t *testing.T) {
		code, so, se := fit("--data", "semi.csv", "--delim", ";")
		wantTrain(t, code, so, se)
	})
	t.Run("semicolon without delim", func(t *testing.T) {
		code, _, se := fit("--data", "semi.csv")
		wantFail(t, 1, []string{"semi.csv", "line 1", "delimiter"}, code, se)
	})
	t.Run("header no", func(t *testing.T) {
		code, so, se := fit("--data", "nohead.csv", "--header", "no")
		wantTrain(t, code, so, se)
	})
	t.Run("header auto on numbers says so", func(t *testing.T) {
		code, so, se := fit("--data", "nohead.csv")
		wantTrain(t, code, so, se)
		if !strings.Contains(se, "nohead.csv: line 1 read as data: every field is a number") {
			t.Fatalf("stderr does not tell the header decision:\n%s", se)
		}
	})
	t.Run("header auto on names says so", func(t *testing.T) {
		code, so, se := fit("--data", "yfirst.csv", "--target", "y")
		wantTrain(t, code, so, se)
		if !strings.Contains(se, "yfirst.csv: line 1 read as the header: no field is a number") {
			t.Fatalf("stderr does not tell the header decision:\n%s", se)
		}
	})
	t.Run("target index", func(t *testing.T) {
		code, so, se := fit("--data", "yfirst.csv", "--target", "0")
		wantTrain(t, code, so, se)
	})
	t.Run("target unknown", func(t *testing.T) {
		code, _, se := fit("--data", "yfirst.csv", "--target", "price")
		wantFail(t, 1, []string{`no column named "price"`, "y, x1, x2, x3"}, code, se)
	})
	body := trainCSV(t, fx, ",", false, false)
	for _, tc := range []struct{ name, first, token, why string }{
		{"NA first row", "NA,0.5,0.5,1\n", `"NA"`, "is not a number"},
		{"question mark first row", "0.5,?,0.5,1\n", `"?"`, "is not a number"},
		{"overflow first row", "1e400,0.5,0.5,1\n", `"1e400"`, "is out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeText(t, dir, "first.csv", tc.first+body)
			code, _, se := fit("--data", "first.csv")
			wantFail(t, 1, []string{"first.csv: line 1:", tc.token, tc.why}, code, se)
			if tc.token != `"1e400"` && !strings.Contains(se, "--header yes") {
				t.Errorf("no hint at --header yes:\n%s", se)
			}
		})
	}
	t.Run("numeric header yes", func(t *testing.T) {
		writeText(t, dir, "numhead.csv", "1,2,3,4\n"+body)
		code, so, se := fit("--data", "numhead.csv", "--header", "yes")
		wantTrain(t, code, so, se)
	})
	t.Run("predict delim and header no", func(t *testing.T) {
		var b strings.Builder
		for i, l := range strings.Split(strings.TrimSuffix(fx.read(t, "test.csv"), "\n"), "\n") {
			if i > 0 {
				b.WriteString(strings.ReplaceAll(l, ",", ";") + "\n")
			}
		}
		writeText(t, dir, "test-semi.txt", b.String())
		code, so, se := cli(t, dir, nil, nil, "predict", "--model", filepath.Join(fx.dir, "mcsv.lmk"), "--data", "test-semi.txt", "--format", "csv", "--delim", ";", "--header", "no")
		if code != 0 || so != fx.ref["test.csv"] {
			t.Fatalf("exit %d, %d lines, want %d\n%s", code, strings.Count(so, "\n"), ioRows, se)
		}
	})
	t.Run("bad header value", func(t *testing.T) {
		code, _, se := fit("--data", "nohead.csv", "--header", "maybe")
		wantFail(t, 2, []string{"maybe", "auto, yes or no"}, code, se)
	})
	t.Run("bad delim value", func(t *testing.T) {
		code, _, se := fit("--data", "semi.csv", "--delim", ";;")
		wantFail(t, 2, []string{"delim", "one character"}, code, se)
	})
	spec := func(dataset string) string {
		return "name: semi\ndataset: " + dataset + "\ntask: regression\nestimator:\n  type: krr\n  kernel: {type: gaussian, gamma: 1}\n  lambda: 0.001\ncv: {folds: 3}\nseed: 1\n"
	}
	t.Run("run yaml delim header target", func(t *testing.T) {
		writeText(t, dir, "ysemi.csv", trainCSV(t, fx, ";", true, true))
		writeText(t, dir, "semi.yaml", spec("{path: ysemi.csv, delim: ';', header: yes, target: y}"))
		code, so, se := cli(t, dir, nil, nil, "run", "semi.yaml", "--out", "out-semi", "--quiet")
		if code != 0 || !strings.Contains(so, "300 training rows × 3 features") {
			t.Fatalf("exit %d\n%s\n%s", code, so, se)
		}
		b, err := os.ReadFile(filepath.Join(dir, "out-semi", "results.csv"))
		if err != nil || strings.Count(string(b), "\n") != 2 {
			t.Fatalf("results.csv: %v, %q; want a header and one row", err, b)
		}
	})
	t.Run("run yaml unknown dataset key", func(t *testing.T) {
		writeText(t, dir, "bad.yaml", spec("{path: semi.csv, separator: ';'}"))
		code, _, se := cli(t, dir, nil, nil, "run", "bad.yaml", "--quiet")
		wantFail(t, 1, []string{`unknown key "separator"`, "valid keys of dataset: delim, drop, format, header"}, code, se)
	})
	t.Run("run target flag overrides the spec", func(t *testing.T) {
		writeText(t, dir, "yfirst.yaml", spec("{path: yfirst.csv, target: x3}"))
		code, so, se := cli(t, dir, nil, nil, "run", "yfirst.yaml", "--target", "y", "--out", "out-y", "--quiet")
		if code != 0 || !strings.Contains(se, "--target y overrides the spec's dataset target: x3") || !strings.Contains(so, "300 training rows × 3 features") {
			t.Fatalf("exit %d\n%s\n%s", code, so, se)
		}
	})
}

// TestCLIInputSmaller: a byte order mark, a truncated gzip file and Ctrl-C
// on a FIFO that has no writer.
func TestCLIInputSmaller(t *testing.T) {
	fx := ioFixtureFor(t)
	dir := t.TempDir()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(fx.dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t.Run("bom libsvm fit", func(t *testing.T) {
		writeText(t, dir, "bom.libsvm", "\ufeff"+read("train.libsvm"))
		code, so, se := cli(t, dir, nil, nil, "fit", "--data", "bom.libsvm", "--task", "regression", "--estimator", "krr", "--gamma", "1", "--lambda", "0.001")
		if code != 0 || !strings.Contains(so, "on 300 rows × 3 features") || lineWith(so, "train:") != fx.trainLine {
			t.Fatalf("exit %d\n%s\n%s", code, so, se)
		}
	})
	for _, name := range []string{"test.libsvm", "test.csv"} {
		t.Run("bom predict "+name, func(t *testing.T) {
			p := writeText(t, dir, "bom-"+name, "\ufeff"+read(name))
			model := map[string]string{"test.libsvm": "m.lmk", "test.csv": "mcsv.lmk"}[name]
			so, _ := mustCLI(t, dir, nil, "predict", "--model", filepath.Join(fx.dir, model), "--data", p)
			if so != fx.ref[name] {
				t.Fatalf("%d lines, want the %d of the file without a BOM", strings.Count(so, "\n"), ioRows)
			}
		})
	}
	t.Run("truncated gzip", func(t *testing.T) {
		full := []byte(read("test.libsvm.gz"))
		// Cuts inside the deflate data and inside the 8-byte trailer.
		for _, cut := range []int{len(full) / 3, len(full) / 2, len(full) - 6} {
			writeText(t, dir, "cut.libsvm.gz", string(full[:cut]))
			code, so, se := cli(t, dir, nil, nil, "predict", "--model", filepath.Join(fx.dir, "m.lmk"), "--data", "cut.libsvm.gz")
			wantFail(t, 1, []string{"cut.libsvm.gz", "truncated compressed data", "gzip stream ends early"}, code, se)
			if strings.Contains(se, "line ") || so != "" {
				t.Fatalf("cut %d: a line number or predictions for a cut file:\n%s%s", cut, so, se)
			}
		}
	})
	// interrupt starts cmd, sends it SIGINT a second later (past the
	// start-up, where the signal handler is installed) and requires exit
	// code 1 with every key word on stderr within a minute (a hang guard).
	interrupt := func(t *testing.T, cmd *exec.Cmd, want ...string) {
		t.Helper()
		var se bytes.Buffer
		cmd.Stderr = &se
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		time.Sleep(time.Second)
		cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-done:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Fatalf("err %v, stderr %q; want exit 130 (128 + SIGINT)", err, se.String())
			}
			for _, w := range want {
				if !strings.Contains(se.String(), w) {
					t.Fatalf("stderr %q lacks %q", se.String(), w)
				}
			}
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Fatal("Ctrl-C did not end the blocked read (hang guard: a minute)")
		}
	}
	t.Run("ctrl-c on a silent stdin", func(t *testing.T) {
		// A pipe nobody writes to nor closes: the read blocks.
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pw.Close()
		cmd := exec.Command(landmarkBin(t), "predict", "--model", filepath.Join(fx.dir, "m.lmk"), "--data", "-")
		cmd.Stdin = pr
		interrupt(t, cmd, "context canceled")
		pr.Close()
	})
	t.Run("ctrl-c on a fifo without writer", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "never")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip(err)
		}
		cmd := exec.Command(landmarkBin(t), "predict", "--model", filepath.Join(fx.dir, "m.lmk"), "--data", fifo)
		interrupt(t, cmd, "context canceled", "waiting for a writer")
	})
}

// TestCLIOutputs: --out of predict and OUT of data convert as Unix tools
// treat outputs.
func TestCLIOutputs(t *testing.T) {
	fx := ioFixtureFor(t)
	model := filepath.Join(fx.dir, "m.lmk")
	data := filepath.Join(fx.dir, "test.libsvm")
	ref := fx.ref["test.libsvm"]
	predict := func(t *testing.T, dir string, out string) (int, string, string) {
		return cli(t, dir, nil, nil, "predict", "--model", model, "--data", data, "--out", out)
	}
	fileIs := func(t *testing.T, p, want string) {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil || string(b) != want {
			t.Fatalf("%s: %v, %d lines, want %d", p, err, strings.Count(string(b), "\n"), strings.Count(want, "\n"))
		}
	}
	names := func(t *testing.T, dir string) string {
		es, _ := os.ReadDir(dir)
		var n []string
		for _, e := range es {
			n = append(n, e.Name())
		}
		return strings.Join(n, " ")
	}
	// An older binary (LANDMARK_E2E_BIN) renames a temporary file over
	// /dev/stdout and /dev/full, which as root replaces the device files
	// of the whole machine: those cases run on this build only.
	olderBinary := os.Getenv("LANDMARK_E2E_BIN") != ""
	for _, out := range []string{"/dev/stdout", "-"} {
		t.Run("out "+out, func(t *testing.T) {
			if olderBinary && out != "-" {
				t.Skip("an older binary may replace /dev/stdout")
			}
			code, so, se := predict(t, t.TempDir(), out)
			if code != 0 || so != ref {
				t.Fatalf("exit %d, %d lines on stdout, want %d\n%s", code, strings.Count(so, "\n"), ioRows, se)
			}
		})
	}
	t.Run("out symlink written through", func(t *testing.T) {
		dir := t.TempDir()
		writeText(t, dir, "real.txt", "old\n")
		os.Symlink("real.txt", filepath.Join(dir, "link.txt"))
		code, _, se := predict(t, dir, "link.txt")
		if code != 0 {
			t.Fatal(se)
		}
		fileIs(t, filepath.Join(dir, "real.txt"), ref)
		if st, err := os.Lstat(filepath.Join(dir, "link.txt")); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Fatal("link.txt is no longer a link")
		}
		if got := names(t, dir); got != "link.txt real.txt" {
			t.Fatalf("folder holds %s", got)
		}
	})
	t.Run("out is the data", func(t *testing.T) {
		dir := t.TempDir()
		p := writeText(t, dir, "d.libsvm", fx.read(t, "test.libsvm"))
		code, so, se := cli(t, dir, nil, nil, "predict", "--model", model, "--data", p, "--out", p)
		wantFail(t, 1, []string{"is also an input"}, code, se)
		fileIs(t, p, fx.read(t, "test.libsvm"))
		if so != "" || strings.Contains(se, "predict: read") {
			t.Fatalf("work done before the refusal:\n%s%s", so, se)
		}
	})
	t.Run("out is the model through a hard link", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Link(model, filepath.Join(dir, "same.lmk")); err != nil {
			t.Skip(err)
		}
		code, _, se := predict(t, dir, "same.lmk")
		wantFail(t, 1, []string{"same.lmk is also an input", "m.lmk"}, code, se)
	})
	t.Run("out directory", func(t *testing.T) {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "sub"), 0o755)
		code, so, se := predict(t, dir, "sub")
		wantFail(t, 1, []string{"sub is a directory"}, code, se)
		if so != "" || names(t, dir) != "sub" || names(t, filepath.Join(dir, "sub")) != "" {
			t.Fatalf("output or files left: %q, %s", so, names(t, dir))
		}
	})
	t.Run("out mode follows umask", func(t *testing.T) {
		dir := t.TempDir()
		for _, tc := range []struct {
			umask int
			want  fs.FileMode
		}{{0o022, 0o644}, {0o077, 0o600}} {
			old := syscall.Umask(tc.umask)
			code, _, se := predict(t, dir, fmt.Sprintf("p%o.txt", tc.umask))
			syscall.Umask(old)
			if code != 0 {
				t.Fatal(se)
			}
			st, _ := os.Stat(filepath.Join(dir, fmt.Sprintf("p%o.txt", tc.umask)))
			if st.Mode().Perm() != tc.want {
				t.Fatalf("umask %o: mode %o, want %o", tc.umask, st.Mode().Perm(), tc.want)
			}
		}
	})
	t.Run("out existing mode kept", func(t *testing.T) {
		dir := t.TempDir()
		p := writeText(t, dir, "keep.txt", "old\n")
		os.Chmod(p, 0o640)
		if code, _, se := predict(t, dir, "keep.txt"); code != 0 {
			t.Fatal(se)
		}
		fileIs(t, p, ref)
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
			t.Fatalf("mode %o, want 0640", st.Mode().Perm())
		}
	})
	t.Run("out device written in place", func(t *testing.T) {
		if olderBinary {
			t.Skip("an older binary may replace /dev/full")
		}
		code, _, se := predict(t, t.TempDir(), "/dev/full")
		wantFail(t, 1, []string{"/dev/full", "no space left"}, code, se)
		if st, err := os.Stat("/dev/full"); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
			t.Fatal("/dev/full is no longer a device")
		}
	})
	t.Run("out fifo written in place", func(t *testing.T) {
		dir := t.TempDir()
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip(err)
		}
		got := make(chan string, 1)
		go func() { b, _ := os.ReadFile(fifo); got <- string(b) }()
		code, _, se := predict(t, dir, fifo)
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
			t.Fatalf("the FIFO was replaced (exit %d, %s)", code, se)
		}
		if code != 0 {
			t.Fatal(se)
		}
		select {
		case s := <-got:
			if s != ref {
				t.Fatalf("reader got %d lines, want %d", strings.Count(s, "\n"), ioRows)
			}
		case <-time.After(time.Minute):
			t.Fatal("the reader got nothing in a minute (hang guard)")
		}
	})
	t.Run("failing write leaves no temp file", func(t *testing.T) {
		dir := t.TempDir()
		out := writeText(t, dir, "out.csv", "old\n")
		// A file size limit of 8 blocks (4 or 8 KiB) makes the write of
		// the 3,000-row CSV fail with EFBIG half-way.
		cmd := exec.Command("sh", "-c", `ulimit -f 8 && exec "$0" "$@"`, landmarkBin(t), "data", "convert", data, "out.csv")
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(b), "file too large") {
			t.Fatalf("err %v: %s", err, b)
		}
		if got := names(t, dir); got != "out.csv" {
			t.Fatalf("folder holds %s, want out.csv alone", got)
		}
		fileIs(t, out, "old\n")
	})
	t.Run("fit save refused before the fit", func(t *testing.T) {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "models"), 0o755)
		p := writeText(t, dir, "train.libsvm", fx.read(t, "train.libsvm"))
		for _, save := range []string{"models", "train.libsvm"} {
			code, so, se := cli(t, dir, nil, nil, "fit", "--data", "train.libsvm", "--task", "regression", "--gamma", "1", "--lambda", "0.001", "--save", save)
			wantFail(t, 1, []string{"--save", save}, code, se)
			if strings.Contains(so, "rows ×") {
				t.Fatalf("--save %s: the fit ran before the refusal:\n%s", save, so)
			}
		}
		fileIs(t, p, fx.read(t, "train.libsvm"))
	})
	t.Run("convert onto its input", func(t *testing.T) {
		dir := t.TempDir()
		p := writeText(t, dir, "d.libsvm", fx.read(t, "test.libsvm"))
		code, _, se := cli(t, dir, nil, nil, "data", "convert", p, "d.libsvm")
		wantFail(t, 1, []string{"is also an input"}, code, se)
		fileIs(t, p, fx.read(t, "test.libsvm"))
	})
	t.Run("convert through a symlink", func(t *testing.T) {
		dir := t.TempDir()
		writeText(t, dir, "real.csv", "old\n")
		os.Symlink("real.csv", filepath.Join(dir, "link.csv"))
		if code, _, se := cli(t, dir, nil, nil, "data", "convert", data, "link.csv"); code != 0 {
			t.Fatal(se)
		}
		fileIs(t, filepath.Join(dir, "real.csv"), fx.read(t, "test.csv"))
		if st, _ := os.Lstat(filepath.Join(dir, "link.csv")); st.Mode()&fs.ModeSymlink == 0 {
			t.Fatal("link.csv was replaced")
		}
	})
	t.Run("convert to stdout", func(t *testing.T) {
		code, so, se := cli(t, t.TempDir(), nil, nil, "data", "convert", data, "-", "--to", "csv")
		if code != 0 || so != fx.read(t, "test.csv") || !strings.Contains(se, "3000 rows × 3 features") {
			t.Fatalf("exit %d, %d lines, want %d\n%s", code, strings.Count(so, "\n"), ioRows+1, se)
		}
	})
}

// read returns a fixture file's text.
func (fx *ioFixture) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fx.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCLIRunOutputs: a spec cannot write outside the working directory,
// and --fresh removes the previous run's outputs before it starts.
func TestCLIRunOutputs(t *testing.T) {
	fx := ioFixtureFor(t)
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b")
	os.MkdirAll(dir, 0o755)
	spec := func(name, extra, grid string) string {
		return "name: " + name + "\ndataset: {path: " + filepath.Join(fx.dir, "train.csv") + "}\ntask: regression\nestimator:\n  type: krr\n  kernel: {type: gaussian}\n" +
			"grid: " + grid + "\ncv: {folds: 2}\nseed: 1\n" + extra
	}
	t.Run("name escaping results", func(t *testing.T) {
		writeText(t, dir, "esc.yaml", spec("../../x", "", "{lambda: [0.001, 0.01], gamma: [1]}"))
		code, _, se := cli(t, dir, nil, nil, "run", "esc.yaml", "--quiet")
		wantFail(t, 1, []string{`name "../../x" is not a plain name`}, code, se)
		if _, err := os.Stat(filepath.Join(root, "x")); err == nil {
			t.Fatal("a folder was made outside results/")
		}
	})
	t.Run("output escaping, --out allowed", func(t *testing.T) {
		writeText(t, dir, "out.yaml", spec("ok", "output: ../../y\n", "{lambda: [0.001, 0.01], gamma: [1]}"))
		code, _, se := cli(t, dir, nil, nil, "run", "out.yaml", "--quiet")
		wantFail(t, 1, []string{`output "../../y" leaves the working directory`, "--out DIR"}, code, se)
		if _, err := os.Stat(filepath.Join(root, "y")); err == nil {
			t.Fatal("a folder was made outside the working directory")
		}
		writeText(t, dir, "out.yaml", spec("ok", "", "{lambda: [0.001, 0.01], gamma: [1]}"))
		code, so, se := cli(t, dir, nil, nil, "run", "out.yaml", "--quiet", "--out", filepath.Join(root, "y"))
		if code != 0 || !strings.Contains(so, "2 grid points") {
			t.Fatalf("exit %d\n%s%s", code, so, se)
		}
	})
	t.Run("fresh interrupted leaves no old results", func(t *testing.T) {
		out := filepath.Join(dir, "fresh-out")
		writeText(t, dir, "a.yaml", spec("fresh", "", "{lambda: [0.001, 0.01], gamma: [1]}"))
		if code, so, se := cli(t, dir, nil, nil, "run", "a.yaml", "--quiet", "--out", out); code != 0 {
			t.Fatalf("first run: %s%s", so, se)
		}
		for _, f := range []string{"results.csv", "summary.md", "manifest.json", "cv_rmse_vs_lambda.png"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Fatalf("first run wrote no %s: %v", f, err)
			}
		}
		old, _ := os.ReadFile(filepath.Join(out, "results.log"))
		// A changed spec, slower (the 3,000-row file, 40 points), run
		// fresh and interrupted once its new log is there.
		var grid []string
		for i := range 40 {
			grid = append(grid, strconv.FormatFloat(math.Pow(10, -6+0.1*float64(i)), 'g', 4, 64))
		}
		b := strings.Replace(spec("fresh", "", "{lambda: ["+strings.Join(grid, ", ")+"], gamma: [1]}"), "train.csv", "test.csv", 1)
		writeText(t, dir, "b.yaml", b)
		cmd := exec.Command(landmarkBin(t), "run", "b.yaml", "--quiet", "--fresh", "--out", out)
		cmd.Dir = dir
		var se bytes.Buffer
		cmd.Stderr = &se
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		for {
			cur, _ := os.ReadFile(filepath.Join(out, "results.log"))
			if len(cur) > 0 && !bytes.Equal(cur[:bytes.IndexByte(cur, '\n')+1], old[:bytes.IndexByte(old, '\n')+1]) {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("the fresh run wrote no new log in a minute (hang guard)")
			}
			time.Sleep(10 * time.Millisecond)
		}
		cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		if err == nil {
			t.Skip("the fresh run finished before it could be interrupted")
		}
		if !strings.Contains(se.String(), "interrupted") {
			t.Fatalf("err %v: %s", err, se.String())
		}
		for _, f := range []string{"results.csv", "results.json", "summary.md", "manifest.json", "cv_rmse_vs_lambda.png", "cv_rmse_vs_lambda.svg"} {
			if _, err := os.Stat(filepath.Join(out, f)); err == nil {
				t.Errorf("the previous spec's %s is still beside the new log", f)
			}
		}
	})
}

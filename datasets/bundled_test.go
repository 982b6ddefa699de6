package datasets

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sharedFileOf maps a bundled set to its source file in the shared folder.
var sharedFileOf = map[string]string{
	"cadata":            "cadata.libsvm.gz",
	"cpusmall":          "cpusmall.libsvm.gz",
	"heart_scale":       "heart_scale.libsvm",
	"pendigits":         "pendigits.train.libsvm.gz",
	"pendigits.test":    "pendigits.test.libsvm.gz",
	"satimage":          "satimage.train.libsvm.gz",
	"satimage.test":     "satimage.test.libsvm.gz",
	"winequality-red":   "winequality-red.csv.gz",
	"winequality-white": "winequality-white.csv.gz",
}

func TestBundled(t *testing.T) {
	infos := Bundled()
	if !slices.IsSortedFunc(infos, func(a, b Info) int { return strings.Compare(a.Name, b.Name) }) {
		t.Fatal("Bundled() is not sorted by name")
	}
	if len(infos) != len(sharedFileOf) {
		t.Fatalf("%d bundled sets, the test knows %d", len(infos), len(sharedFileOf))
	}
	infos[0].Name = "changed" // a copy: the registry is untouched
	if Bundled()[0].Name == "changed" {
		t.Fatal("Bundled() exposes its internal slice")
	}
	for _, info := range Bundled() {
		t.Run(info.Name, func(t *testing.T) {
			d, err := Load(info.Name)
			if err != nil {
				t.Fatal(err)
			}
			if d.Len() != info.N || d.Dim() != info.D || d.Name != info.Name {
				t.Fatalf("%s: %d×%d, Info says %d×%d", d.Name, d.Len(), d.Dim(), info.N, info.D)
			}
			if info.Citation == "" || info.Target == "" {
				t.Error("missing citation or target description")
			}
			// The recorded task agrees with the labels.
			switch info.Task {
			case Regression:
				if info.Classes != 0 {
					t.Errorf("regression set with Classes = %d", info.Classes)
				}
			case Binary, Multiclass:
				if err := CheckClasses(d.Y, 0); err != nil {
					t.Error(err)
				}
				if k := len(ClassCounts(d.Y)); k != info.Classes || (info.Task == Binary) != (k == 2) {
					t.Errorf("%d classes, Info says %d (%s)", k, info.Classes, info.Task)
				}
			default:
				t.Errorf("unknown task %q", info.Task)
			}
			// The embedded copy holds exactly the shared file's numbers.
			p, ok := SharedPath(sharedFileOf[info.Name])
			if !ok {
				return
			}
			ref, err := ReadFile(p, ReadOptions{Dim: info.D})
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(ref.X, d.X) || !slices.Equal(ref.Y, d.Y) {
				t.Errorf("bundled %s differs from %s", info.Name, p)
			}
		})
	}
}

func TestLoadErrorsAndSplit(t *testing.T) {
	if _, err := Load("iris"); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "cadata") {
		t.Errorf("unknown name: err = %v (should list the bundled names)", err)
	}
	for _, name := range []string{"pendigits", "pendigits.test"} {
		train, test, err := LoadSplit(name)
		if err != nil {
			t.Fatal(err)
		}
		if train.Name != "pendigits" || train.Len() != 7494 || test.Name != "pendigits.test" || test.Len() != 3498 || test.Dim() != train.Dim() {
			t.Errorf("LoadSplit(%q) = %s %d×%d, %s %d×%d", name, train.Name, train.Len(), train.Dim(), test.Name, test.Len(), test.Dim())
		}
	}
	if _, _, err := LoadSplit("cadata"); !errors.Is(err, ErrInput) {
		t.Errorf("LoadSplit(cadata): err = %v, want ErrInput (no official split)", err)
	}
	// Open prefers bundled names, then files.
	d, err := Open("heart_scale", ReadOptions{})
	if err != nil || d.Len() != 270 {
		t.Fatalf("Open(heart_scale): %v", err)
	}
	d, err = Open("testdata/small.libsvm", ReadOptions{})
	if err != nil || d.Len() != 3 {
		t.Fatalf("Open(file): %v", err)
	}
}

// BenchmarkLoad measures decompressing and parsing bundled sets (the brief
// asks for cadata well under 0.5 s):
//
//	go test -run XXX -bench Load ./datasets/
func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{"cadata", "satimage"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Load(name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

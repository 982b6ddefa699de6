package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/landmark-ml/landmark/datasets"
)

// isSpecName reports whether path is named as a spec (.yaml or .yml).
func isSpecName(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return true
	}
	return false
}

// specArg returns, for a positional argument that is no spec, the usage
// error to give instead of the spec decoder's when its name is that of a
// data file (LIBSVM's svm-train habit, "landmark fit heart.libsvm", was
// reported as "line 1: … is a string, want a mapping"); nil otherwise.
func specArg(cmd, path string) error {
	if isSpecName(path) {
		return nil
	}
	format, ok := datasets.FormatOf(path)
	if !ok {
		return nil
	}
	return dataFile(cmd, path, format)
}

// dataFile is the usage error for a data file given to cmd as its SPEC.yaml.
func dataFile(cmd, path string, format datasets.Format) error {
	what := "a LIBSVM data file"
	if format == datasets.CSV {
		what = "a CSV data file"
	}
	if cmd == "fit" {
		return fmt.Errorf("%w: %s is %s, not a SPEC.yaml: give it as --data %s", errUsage, path, what, path)
	}
	return fmt.Errorf("%w: %s is %s, not a SPEC.yaml: landmark %s takes a spec whose dataset.path names it (landmark fit --data %s fits it once)", errUsage, path, what, cmd, path)
}

// dataArg returns, for a positional argument whose content is data rather
// than a spec, the usage error specArg gives, before the spec decoder reads
// the file: the decoder reads it whole (mnist's 69 MB LIBSVM training file
// took 6.6 s and 527 MB to be refused) and a file named as the LIBSVM site
// names its files (a9a, news20.binary) was reported as "line 1: … is a
// string, want a mapping". A name ending in .yaml or .yml is a spec, and a
// stream is left to the decoder (looking at it would consume it). Otherwise
// the first line that is neither blank nor a comment decides: a YAML
// mapping's ("key:" or "key: value") or a document's start ("---", "%",
// "{") is read as a spec, whatever the name (a spec named .txt runs); else
// a line datasets.DetectFormat reads as LIBSVM or CSV (after gzip or bzip2)
// is data, and a binary file it names (a saved model, a numpy array) is
// refused with its words. Anything else goes to the decoder, whose error
// names the line.
func dataArg(cmd, path string) error {
	if isSpecName(path) {
		return nil
	}
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	head := make([]byte, 4<<10)
	k, _ := io.ReadFull(f, head)
	f.Close()
	head = head[:k]
	text := utf8.Valid(head[:max(0, k-utf8.UTFMax)]) && bytes.IndexByte(head, 0) < 0
	if text {
		for line := range bytes.Lines(head) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 || line[0] == '#' {
				continue
			}
			if yamlStart(line) {
				return nil
			}
			break
		}
	}
	format, err := datasets.DetectFormat(path)
	switch {
	case err == nil:
		return dataFile(cmd, path, format)
	case !text:
		return fmt.Errorf("%w: %s is not a SPEC.yaml: %w", errUsage, path, err)
	}
	return nil
}

// yamlStart reports whether a spec's first significant line (trimmed) opens
// a YAML mapping or document: a LIBSVM or CSV line never does (LIBSVM's
// colons are followed by a value, not a space).
func yamlStart(line []byte) bool {
	for _, p := range []string{"---", "%", "{"} {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return bytes.HasSuffix(line, []byte(":")) || bytes.Contains(line, []byte(": ")) || bytes.Contains(line, []byte(":\t"))
}

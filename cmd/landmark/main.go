// Command landmark fits, evaluates and benchmarks Landmark's kernel methods
// from the command line. Run "landmark help" for the list of subcommands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/bench"
	"github.com/landmark-ml/landmark/internal/cmdline"
)

// command is one subcommand: its name, a one-line summary and the function that runs it.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands is the one table of subcommands; help lists it sorted by name.
var commands = []command{
	{"approx", "measure a kernel approximation's error, rank, time and memory", runApprox},
	{"bench", "benchmark the kernel engine (and estimators) side by side with scikit-learn", bench.Run},
	{"data", "list, inspect, convert, shard and synthesize datasets (data list|info|convert|shard|synth)", runData},
	{"demo", "fit and score an estimator on a bundled dataset", runDemo},
	{"fit", "fit a model on a dataset and save it", runFit},
	{"model", "describe a saved model: estimator, kernel, classes, features, outputs (model info)", runModel},
	{"predict", "predict with a saved model", runPredict},
	{"run", "run a YAML experiment (grid × cross-validation)", runRun},
	{"version", "print the version", runVersion},
}

// exitInterrupted is the exit status after Ctrl-C: 128 + SIGINT (2).
const exitInterrupted = 130

// errUsage marks errors caused by a malformed command line (exit code 2).
var errUsage = cmdline.ErrUsage

func main() {
	ctx, stop := interruptContext()
	defer stop()
	os.Exit(dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// interruptContext is the commands' context: the first Ctrl-C (SIGINT)
// cancels it, so that long work stops cleanly (exit status 130, no partial
// output); from then on SIGINT has its default effect again, so that a
// second Ctrl-C ends the process at once, however long the wind-down.
func interruptContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done()
		stop() // restores SIGINT's default action
	}()
	return ctx, stop
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			return dispatch(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	switch args[0] {
	case "--version", "-version", "-v":
		// GNU's and Python's spelling of the version command.
		args = append([]string{"version"}, args[1:]...)
	}
	for _, c := range commands {
		if c.name == args[0] {
			if c.name != "bench" && helpAsked(args[1:]) {
				// Help asked for is the output: on stdout, as argparse
				// and GNU tools print it, so that "landmark fit --help |
				// grep gamma" finds it (flag prints it on the writer it
				// is given; a usage error's stays on stderr).
				stderr = stdout
			}
			err := c.run(ctx, args[1:], stdout, stderr)
			switch {
			case err == nil, errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				fmt.Fprintf(stderr, "landmark %s: %v\n", c.name, err)
				return 2
			case errors.Is(err, context.Canceled) && ctx.Err() != nil:
				// Cancelled by the interrupt (main's signal context):
				// 128 + SIGINT, as shells and most commands report it.
				fmt.Fprintf(stderr, "landmark %s: %v\n", c.name, err)
				return exitInterrupted
			default:
				if h := cmdline.Hint(err); h != "" {
					fmt.Fprintf(stderr, "landmark %s: %v (%s)\n", c.name, err, h)
					return 1
				}
				fmt.Fprintf(stderr, "landmark %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	fmt.Fprintf(stderr, "landmark: unknown command %q%s\n\n", args[0], experiments.DidYouMean(args[0], names))
	usage(stderr)
	return 2
}

// helpAsked reports whether args ask for the command's help: -h, -help or
// --help before any "--"; not -h 0 or -h 1, svm-train's shrinking switch,
// which the flag parser names as such (cmdline.Parse).
func helpAsked(args []string) bool {
	for i, a := range args {
		switch a {
		case "--":
			return false
		case "-h":
			if i+1 < len(args) && (args[i+1] == "0" || args[i+1] == "1") {
				continue
			}
			return true
		case "-help", "--help":
			return true
		}
	}
	return false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "landmark — kernel methods at scale (KRR, FALKON, kernel SVM, BKA-SVM)")
	fmt.Fprintln(w, "\nUsage: landmark COMMAND [flags]\n\nCommands:")
	cs := append([]command(nil), commands...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	width := 0
	for _, c := range cs {
		width = max(width, len(c.name))
	}
	for _, c := range cs {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"landmark COMMAND --help\" for a command's flags.")
}

// version is the module version; release builds set it with -ldflags "-X main.version=…".
var version = "v0.1.0-dev"

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("version", "", stderr)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "landmark", version)
	return nil
}

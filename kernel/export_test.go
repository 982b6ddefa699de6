package kernel

// HeavyDiv exposes heavyDiv to the external test package's benchmarks.
var HeavyDiv = &heavyDiv

//go:build !unix

package main

// signalChild is never run here: the interrupt tests that start it send
// Unix signals (signal_test.go).
func signalChild() {}

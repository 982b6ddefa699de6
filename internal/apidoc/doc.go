// Package apidoc holds only a test: every exported identifier of the
// module's public packages (and of the Beam module, distributed/) has a doc
// comment, as the house style asks.
package apidoc

// Package points holds the row-level helpers the approximation packages share
// (approx, approx/cluster, approx/meka): reading and validating dense or
// CSR data, gathering rows, exact kernel rows and blocks against data rows,
// and the saved-file encoding of rows in the original feature space. It has
// no algorithm of its own.
package points

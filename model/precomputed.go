package model

import (
	"fmt"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// A precomputed kernel (kernel.Precomputed, LIBSVM's -t 4, scikit-learn's
// kernel="precomputed") gives its values as kernel rows: X is then the
// n×(n+1) matrix [serial | K] of the training points and a query row is
// [any | K(x, x_1), …, K(x, x_n)]. The SVMs (SVM, SVR, OneClassSVM) and
// exact KRR need k only between given rows and take it; the estimators that
// make new points (BKA-SVM's and the clustered Nyström's k-means centers,
// MEKA's blocks, random features) or choose centers of their own (FALKON,
// the Nyström backends) refuse it.

// checkPrecomputed checks, when k is kernel.Precomputed, that x holds
// training rows: the serial numbers in column 0 (kernel.CheckPrecomputed).
func checkPrecomputed(k kernel.Kernel, x mat.Matrix) error {
	if _, ok := k.(kernel.Precomputed); !ok {
		return nil
	}
	return kernel.CheckPrecomputed(x)
}

// refusePrecomputed refuses kernel.Precomputed in an estimator (who) that
// needs kernel values at points other than the given rows.
func refusePrecomputed(k kernel.Kernel, who string) error {
	if _, ok := k.(kernel.Precomputed); !ok {
		return nil
	}
	return fmt.Errorf("%w: %s does not take a precomputed kernel: it needs the kernel at points of its own (centers or clusters); the svm, svr, one-class svm and exact krr estimators take it", ErrInput, who)
}

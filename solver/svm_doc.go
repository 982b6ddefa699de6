package solver

// SVM dual solvers (svm.go, cache.go).
//
// Both solvers minimize the dual of the soft-margin kernel SVM,
//
//	min_α ½αᵀQα − eᵀα,  0 ≤ α_i ≤ C_i,  Q_ij = y_i y_j K(x_i, x_j),
//
// over a Columns interface that yields one kernel column at a time, so that
// the n×n kernel matrix never has to exist; columns are kept in an LRU Cache
// with a byte budget and recomputed when evicted.
//
//   - SolveSMO adds the constraint yᵀα = 0 of the SVM with bias (LIBSVM's
//     C-SVC) and solves it by SMO with the second-order working-set selection
//     WSS 2 of Fan, Chen & Lin, "Working set selection using second order
//     information for training SVM", JMLR 6 (2005), eq. (14)–(16), the
//     two-variable update and the shrinking and stopping rules of Chang & Lin,
//     "LIBSVM", ACM TIST 2 (2011), Sect. 4.1–4.4 (stop when
//     max_{I_up} −y_tG_t + max_{I_low} y_tG_t < ε, ε = 1e-3 by default).
//     The bias is −ρ of LIBSVM's Sect. 4.1.5. With SVMProblem.Sum = Δ the
//     constraint is yᵀα = Δ from a feasible start: the one-class SVM of
//     Schölkopf et al., "Estimating the support of a high-dimensional
//     distribution", Neural Computation 13 (2001), eq. (4)–(5), scaled by νn
//     as LIBSVM's -s 2 (Chang & Lin 2011, Sect. 2.3: y = e, p = 0, C = 1,
//     Δ = νn).
//   - SolveNu adds a second equality, eᵀα = Δ', for the ν-SVMs (Chang &
//     Lin 2011, Sect. 2.2 and 2.5; LIBSVM's Solver_NU): the working pair
//     shares its label, chosen within each label by WSS 2, and the stopping
//     rule, the shrinking and ρ take the labels apart.
//   - SolveDCD solves the problem without bias, used by BKA-SVM (Si, Hsieh &
//     Dhillon, "Memory Efficient Kernel Approximation", JMLR 18 (2017),
//     Sect. 4.2) and DC-SVM, by dual coordinate descent with the exact
//     one-variable step and the shrinking of Hsieh et al., "A dual coordinate
//     descent method for large-scale linear SVM", ICML 2008, Alg. 1–3; the
//     coordinate is chosen greedily by the largest projected gradient. By
//     default a second coordinate is chosen by second-order gain and the
//     two-variable box problem is solved exactly (Steinwart, Hush & Scovel,
//     "Training SVMs without offset", JMLR 12 (2011), Sect. 3): on ijcnn1
//     (20,000 points, C = 32, γ = 2) this needs 25,119 updates where
//     one-coordinate descent needs 303,945 (SVMOptions.SingleCoordinate).
//
// Shrinking: bounded variables whose gradient shows they cannot become
// violators are removed from the active set; when the violation first falls
// within 10ε the full gradient is rebuilt and all variables reactivated, and
// the final optimality check is always made on the whole problem. When the
// active set is below half of the rows columns are computed, a Columns that
// implements Subsetter is restricted to it, so columns cost the active size.

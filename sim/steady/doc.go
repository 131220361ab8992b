// Package steady finds where a simulation's output series leaves its
// initial transient, so that a figure measured inside the transient is
// reported as not steady instead of printed.
//
// The method is the marginal standard error rule, MSER (K. P. White Jr.,
// "An effective truncation heuristic for bias reduction in simulation
// output", Simulation 69(6):323–334, 1997), applied to batch means of five
// observations, MSER-5 (S. C. Spratt, "Heuristics for the startup problem",
// M.S. thesis, University of Virginia, 1998; compared with other truncation
// rules by K. P. White Jr., M. J. Cobb and S. C. Spratt, "A comparison of
// five steady-state truncation heuristics for simulation", Proceedings of
// the 2000 Winter Simulation Conference, 755–760, and with N-Skart by
// A. C. Mokashi et al., "Performance comparison of MSER-5 and N-Skart on the
// simulation start-up problem", Proceedings of the 2010 Winter Simulation
// Conference, 971–982).
//
// For batch means z[0..m-1] and a truncation d, MSER(d) is the squared
// standard error of the mean of the kept batches z[d..m-1], computed as if
// they were independent:
//
//	MSER(d) = Σ_{i=d}^{m-1} (z[i] − mean(z[d..m-1]))² / (m − d)²
//
// Dropping batches of the transient lowers MSER (the kept part is more
// homogeneous); dropping batches of the steady part raises it (fewer batches
// are left to average). The truncation point is the d that minimizes it.
// A minimizer in the second half of the series means that the series has
// not settled: its last batches differ from the rest, so a longer run is
// needed (the rule the papers above apply, d* ≤ m/2).
//
// Every function here is pure: no state, no allocation beyond the result
// and the batch means, deterministic for a given input.
package steady

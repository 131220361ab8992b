// Package usl fits Gunther's Universal Scalability Law to throughput measured
// at several concurrencies:
//
//	X(N) = λN / (1 + σ(N−1) + κN(N−1))
//
// where N is the concurrency (client threads), X the throughput, λ the
// throughput of one unit of concurrency, σ the contention (serial fraction)
// and κ the coherency (crosstalk) penalty. innosim fit reads a CSV into
// Points and prints the fit; innosim run fits each row of its sweep for the
// table's peak column.
//
// Measurements at one concurrency combine as they are added (Points.Add):
// the least-squares fit reads only their count and mean, so its time grows
// with the number of distinct concurrencies, not with the number of rows.
// Fit honours its context between iterations of the optimiser.
package usl

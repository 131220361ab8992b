// Package sim is a deterministic discrete-event simulator of an InnoDB-style
// server on N cores. (Full documentation below is completed with the models.)
package sim

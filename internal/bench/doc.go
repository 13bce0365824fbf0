// Package bench holds the parts of `chronos bench` that need no database driver and no
// command line: the alarm mix it loads, the lag histogram, the recorder that counts
// every delivery by occurrence key (so a double fire cannot go unseen), the no-op
// waker, and the local webhook receiver. cmd/chronos wires them to real stores, real
// dispatchers and real processes; docs/benchmarks.md has the figures. It is internal to
// the module: a benchmark is no part of chronos as a library.
package bench

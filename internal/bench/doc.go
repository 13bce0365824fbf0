// Package bench is `chronos bench`: it makes a throwaway database on the server it is
// pointed at, loads a mix of alarms (or creates them at a steady rate, or, in the
// fairness mode, loads one owner's burst beside other owners' steady trickle; in the
// hung-endpoint mode, one endpoint's hung alarms beside another's trickle), runs real
// dispatchers on real stores (in this process, or as worker processes of the same
// binary), counts every delivery by occurrence key so a double fire cannot go unseen,
// and prints what it measured: a table for people, then one JSON line for scripts.
// docs/benchmarks.md has the figures.
//
// It is internal to the module: a benchmark is no part of chronos as a library, and it
// may import anything (adapters, pgx, the MySQL driver) as cmd/chronos does.
//
// The command line. The options are defined here (Config.RegisterFlags,
// WorkerConfig.RegisterFlags), next to the fields they fill and the code that passes
// them on to worker processes; the binary owns the FlagSet, its usage format and the
// parsing, as for every other command, and then calls Run (or RunWorker for the hidden
// WorkerCommand). What the bench must not choose itself (how a store URL is opened,
// the version nodes report, the log) comes in a Wiring.
//
// Stores. Everything a run does to chronos's data goes through ports.Store as the
// binary opens it: the load (ports.BulkCreator, else Create), the steady creates
// (owners.Alarms.CreateBatch, or the HTTP API), the list benchmark (Store.List). The bench
// keeps connections of its own only for what no port offers: creating and dropping its
// own database, the server's commit counter, refreshing statistics after the load,
// and table sizes (database.go, sizes.go); a worker process's peak RSS is its own
// VmHWM (sizes.go says why not getrusage).
//
// The parts without I/O: Mix, Build and BuildSpecs (the alarms a run loads), Histogram
// (lags), Recorder (deliveries by occurrence key, and by owner in the fairness mode),
// NoopWaker and Receiver (the local webhook endpoint), measureFairness and measureHung
// (the fairness and hung-endpoint modes' figures).
package bench

// Package ports declares what the chronos core needs from the outside world: storage
// (AlarmStore, ClaimStore, TokenStore, WorkerStore, ..., gathered in Store), delivery (Waker)
// and time (Clock), plus the portable errors every adapter maps its failures to.
//
// The comments are written for adapter authors. test/contract is the executable form
// of these promises: an adapter is correct when contract.Run passes against it.
package ports

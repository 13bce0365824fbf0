// Package domain is the pure core of chronos: the Alarm, its lifecycle, schedules
// (cron, timezones, DST), backoff, and the state machine that turns a delivery
// outcome into a Transition for a store to apply.
//
// Nothing here performs I/O, reads a clock or logs. Every function that needs the
// current time takes it as a parameter, so callers (and tests) decide what "now" is:
// the dispatcher passes the store's clock, which on PostgreSQL and MySQL is the
// database's.
package domain

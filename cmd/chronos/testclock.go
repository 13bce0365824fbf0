package main

import (
	"fmt"
	"os"
	"time"

	"github.com/chronoshq/chronos/app"
	"github.com/chronoshq/chronos/ports"
)

// testClockSkewEnv is a TEST-ONLY setting, deliberately left out of --help and the
// README: a Go duration ("30s", "-45s") by which this process pretends its clock is
// off. test/e2e sets it to run nodes whose clocks disagree and show that on PostgreSQL
// and MySQL due-ness and leases follow the database's clock (no early fire, no double
// fire). It shifts the clock the app reads (app.StoreClock) and, because SQLite has no
// clock of its own, the SQLite store's clock: exactly what a skewed machine would see.
const testClockSkewEnv = "CHRONOS_TEST_CLOCK_OFFSET"

// testClockSkew returns the injected skew; 0 when the variable is unset.
func testClockSkew() (time.Duration, error) {
	v := os.Getenv(testClockSkewEnv)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not a duration: %w", testClockSkewEnv, v, err)
	}
	return d, nil
}

// storeClockOptions applies the test skew, if any, to the app's clock.
func storeClockOptions() ([]app.StoreClockOption, time.Duration, error) {
	skew, err := testClockSkew()
	if err != nil || skew == 0 {
		return nil, 0, err
	}
	return []app.StoreClockOption{app.WithProcessClockSkew(skew)}, skew, nil
}

// processClock is the clock a store without a database clock (SQLite) reads: nil, the
// store's default, unless the test skew is set.
func processClock() (ports.Clock, error) {
	skew, err := testClockSkew()
	if err != nil || skew == 0 {
		return nil, err
	}
	return skewedClock{skew: skew}, nil
}

type skewedClock struct{ skew time.Duration }

func (c skewedClock) Now() time.Time { return time.Now().Add(c.skew).UTC() }

package domain

import "sync"

// Every fire of a cron alarm computes its next occurrence, which needs the parsed
// schedule; parsing it again each time (robfig's parser plus loading the zone's rules)
// was the largest cost of deciding an outcome in a burn-down (docs/benchmarks.md).
// Installations have many series but few distinct (expression, zone) pairs, so parsed
// schedules are kept, bounded: when the cache is full it is emptied and refills with
// what is in use. Only successful parses are kept, so every error is computed afresh.
const scheduleCacheSize = 4096

type scheduleKey struct{ expr, tz string }

var scheduleCache = struct {
	sync.RWMutex
	m map[scheduleKey]*Schedule
}{m: make(map[scheduleKey]*Schedule)}

func cachedSchedule(expr, tz string) *Schedule {
	scheduleCache.RLock()
	defer scheduleCache.RUnlock()
	return scheduleCache.m[scheduleKey{expr, tz}]
}

func cacheSchedule(expr, tz string, s *Schedule) {
	scheduleCache.Lock()
	defer scheduleCache.Unlock()
	if len(scheduleCache.m) >= scheduleCacheSize {
		clear(scheduleCache.m)
	}
	scheduleCache.m[scheduleKey{expr, tz}] = s
}

// Package metrics is the Prometheus implementation of ports.Metrics.
//
// Each Metrics owns its registry, never the global default one, so two nodes in one
// process (tests, the bench) never collide. Handler serves that registry in the
// Prometheus text format, or OpenMetrics when the scraper asks for it.
//
// What it exposes (every duration in seconds):
//
//	chronos_wakes_total{outcome}                      delivered, failed, stale
//	chronos_wake_lag_seconds                          histogram: delivered minus due
//	chronos_delivery_duration_seconds                 histogram: one delivery
//	chronos_claim_duration_seconds                    histogram: one ClaimDue call
//	chronos_claims_total, chronos_claimed_total       ClaimDue calls, alarms claimed
//	chronos_due_backlog, chronos_oldest_due_lag_seconds, chronos_alarms{status}
//	                                                  sampled; only on the sampling node
//	chronos_retention_deleted_total{table}            alarms, alarm_events
//	chronos_dispatch_paused                           0 or 1
//	chronos_api_requests_total{method,route,code}
//	chronos_api_request_duration_seconds{method,route}
//	chronos_refusals_total{reason}                    quota_exceeded, rate_limited
//	chronos_build_info{version}                       always 1
//
// plus the go_ and process_ collectors. Every label value is bounded: outcomes, tables,
// statuses and reasons are fixed sets, route is the router's template, and a method
// outside the standard HTTP ones is counted as "other".
package metrics

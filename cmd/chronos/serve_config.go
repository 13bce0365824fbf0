package main

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/chronoshq/chronos/adapters/webhook"
	"github.com/chronoshq/chronos/app/chores"
	"github.com/chronoshq/chronos/app/dispatch"
	"github.com/chronoshq/chronos/app/owners"
	"github.com/chronoshq/chronos/domain"
	"github.com/chronoshq/chronos/internal/flagenv"
)

const defaultStore = "sqlite://chronos.db"

// maxBulkPerCall is the most --max-bulk-per-call takes: what the admin's bulk calls
// take at most, already seconds of work.
const maxBulkPerCall = 10_000

// serveConfig is every setting of `chronos serve`.
type serveConfig struct {
	Store              string
	StoreListenURL     string
	StoreReplica       string
	NoMigrate          bool
	Listen             string
	WakeURL            string
	WakeSecrets        flagenv.List
	WakeSecretFile     string
	TLSCert, TLSKey    string
	PublicURL          string
	OTelEndpoint       string
	Dev                bool
	Tick               time.Duration
	Lease              time.Duration
	Batch              int
	Concurrency        int
	OwnerMaxInFlight   int
	UnfairClaims       bool
	WakeURLMaxInFlight int
	AttemptBodyBytes   int
	MaxFailures        int
	BackoffBase        time.Duration
	BackoffCap         time.Duration
	MisfireThreshold   time.Duration
	BreakerFailures    int
	BreakerCooldown    time.Duration
	EndpointAllowCIDRs flagenv.List
	DeliveryTimeout    time.Duration
	ReceiverErrors     string
	DrainTimeout       time.Duration
	Retention          time.Duration
	EventsPerAlarm     int
	MetricsListen      string
	BackupDir          string
	MaxActive          int
	QuotaRefresh       time.Duration
	RateLimit          int
	AuthFailures       int
	MaxCalendars       int
	MaxCalendarEntries int
	MaxBulkPerCall     int
	MaxBulkCalls       int
	ShowPayloads       bool
	UI                 bool
	LogFormat          string
	LogLevel           string

	// warnings are what validate found worth saying but not worth refusing; serve logs
	// them once it has a logger.
	warnings []string
}

func (c *serveConfig) register(fs *flag.FlagSet) {
	d := dispatch.DefaultConfig()
	fs.StringVar(&c.Store, "store", defaultStore, "store URL: sqlite://path.db (relative), sqlite:///abs/path.db, postgres://..., mysql://...")
	fs.StringVar(&c.StoreListenURL, "store-listen-url", "", "PostgreSQL behind a transaction pooler (pooler=transaction in --store): a direct URL of the same database, for the wake hints' LISTEN; \"\": hints off, nodes find due alarms every --tick (docs/postgres.md, \"PgBouncer\")")
	fs.StringVar(&c.StoreReplica, "store-replica", "", "PostgreSQL: the URL of a hot standby of --store's database; admin and dashboard lists, counts, alarm pages and histories are read from it (the primary while it does not answer), never claims, creates or changes (docs/postgres.md, \"Read replicas\")")
	fs.BoolVar(&c.NoMigrate, "no-migrate", false, "do not migrate at start; refuse to run on an outdated schema")
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:8080", "HTTP listen address")
	fs.StringVar(&c.WakeURL, "wake-url", "", "where wakes are POSTed (required unless --dev)")
	fs.Var(&c.WakeSecrets, "wake-secret", "HMAC-SHA256 key that signs every wake (required unless --dev; at least 24 bytes of key); repeat it to sign with several while rotating (README); whsec_<base64> keys webhook-signature with the decoded bytes")
	fs.StringVar(&c.WakeSecretFile, "wake-secret-file", "", "read the wake secrets from this file instead: one a line, each signing every wake as a repeated --wake-secret does (# comments); keeps them off the command line")
	fs.StringVar(&c.TLSCert, "tls-cert", "", "serve HTTPS on --listen with this PEM certificate (chain); needs --tls-key; both are read again on SIGHUP")
	fs.StringVar(&c.TLSKey, "tls-key", "", "the PEM private key of --tls-cert")
	fs.StringVar(&c.PublicURL, "public-url", "", "the address clients reach this server at; https://... makes dashboard cookies Secure and adds Strict-Transport-Security, also behind a TLS-terminating proxy")
	fs.StringVar(&c.OTelEndpoint, "otel-endpoint", "", "export OpenTelemetry spans of every create, claim, wake and apply over OTLP/HTTP to this collector URL, e.g. http://collector:4318 (docs/tracing.md); \"\": none")
	fs.BoolVar(&c.Dev, "dev", false, "print wakes as JSON lines to stdout instead of POSTing them")
	fs.DurationVar(&c.Tick, "tick", d.Tick, "how often an idle node reads the next due time (one store call a tick); wakes go out when due, not at the tick")
	fs.DurationVar(&c.Lease, "lease", d.Lease, "claim lease; must exceed --delivery-timeout")
	fs.IntVar(&c.Batch, "batch", d.Batch, "most alarms claimed at once")
	fs.IntVar(&c.Concurrency, "concurrency", d.Concurrency, "most wakes in flight at once")
	fs.IntVar(&c.OwnerMaxInFlight, "owner-max-in-flight", 0, "most wakes of one owner in flight on this node (0: half of --concurrency); more are held back and come back at the owner's pace")
	fs.IntVar(&c.AttemptBodyBytes, "attempt-body-bytes", domain.DefaultReceiptBody, fmt.Sprintf("how many bytes of each answer's body a delivery attempt keeps in the attempt log, 0 to keep none (at most %d); --wake-url's answers only with --receiver-errors full, endpoints' always", domain.MaxReceiptBody))
	fs.IntVar(&c.WakeURLMaxInFlight, "wake-url-max-in-flight", 0, "while several owners' wakes go to --wake-url, at most this many in flight from this node; the rest wait here, owners in turn, so one owner's burst does not queue in the receiver ahead of the others (0: 128; -1: no limit)")
	fs.BoolVar(&c.UnfairClaims, "unfair-claims", false, "under a backlog, claim the oldest due first whoever owns them (MySQL/MariaDB: an even share per lane with due alarms), instead of serving owners in turn (for comparison only)")
	fs.IntVar(&c.MaxFailures, "max-failures", 5, "default failed deliveries before a once alarm fails (1..100)")
	fs.DurationVar(&c.BackoffBase, "backoff-base", d.Policy.Backoff.Base, "first retry delay; doubles per failure")
	fs.DurationVar(&c.BackoffCap, "backoff-cap", d.Policy.Backoff.Cap, "longest retry delay")
	fs.DurationVar(&c.MisfireThreshold, "misfire-threshold", d.Policy.MisfireThreshold, "how late a cron occurrence may fall due before its series' misfire policy counts it as missed")
	fs.IntVar(&c.BreakerFailures, "endpoint-breaker-failures", 10, "failed deliveries in a row that open an endpoint's breaker (its wakes are then held back, not retried)")
	fs.DurationVar(&c.BreakerCooldown, "endpoint-breaker-cooldown", 30*time.Second, "how long an endpoint's breaker first stays open; doubles after each failed probe, up to 10m")
	fs.Var(&c.EndpointAllowCIDRs, "endpoint-allow-cidr", "let wakes to the owners' endpoints and failure_urls reach this range, e.g. 10.20.0.0/16, although it is loopback, private, link-local, unspecified, multicast, CGNAT or reserved (refused by default; --dev allows loopback); repeat it for several, comma-separated in the environment (docs/security.md, \"Egress\"). --wake-url is never checked")
	fs.DurationVar(&c.DeliveryTimeout, "delivery-timeout", d.DeliveryTimeout, "how long a receiver has to answer a wake")
	fs.StringVar(&c.ReceiverErrors, "receiver-errors", string(webhook.ReceiverErrorsStatus), "what a failed delivery's last_error quotes of the receiver: status (the status code and its standard text; a failure before any answer in generic words, no address) or full (also its body's first 512 bytes, its own status text, a redirect's Location, the transport's text with addresses)")
	fs.DurationVar(&c.DrainTimeout, "drain-timeout", d.DrainTimeout, "on shutdown, how long in-flight wakes may finish")
	fs.DurationVar(&c.Retention, "retention", 720*time.Hour, "delete fired, cancelled and failed alarms, and events, older than this (0 keeps everything; at least 1m)")
	fs.IntVar(&c.EventsPerAlarm, "events-per-alarm", 1000, "keep at most this many events per alarm, newest first (0: no cap)")
	fs.StringVar(&c.MetricsListen, "metrics-listen", "", "also serve /metrics (no token) on this address, e.g. 127.0.0.1:9090; it is always on --listen too")
	fs.StringVar(&c.BackupDir, "backup-dir", "", "SQLite: the directory an admin's backups on request (POST /admin/v1/store/backup, the dashboard) are written to, named by the node; \"\": none (chronos backup still works)")
	fs.IntVar(&c.MaxActive, "max-active-alarms-per-owner", 1_000_000, "refuse (429 quota_exceeded) a create that would take its owner past this many active or paused alarms; 0: no quota")
	fs.DurationVar(&c.QuotaRefresh, "quota-refresh", owners.DefaultQuotaRefresh, "how old a node's count of an owner's active alarms may get; on N nodes an owner can end over its quota by what the others created in about this long")
	fs.IntVar(&c.RateLimit, "rate-limit", owners.DefaultRateLimit, "requests per second per token on this node, in bursts of twice that (429 rate_limited over it); 0: no limit")
	fs.IntVar(&c.AuthFailures, "auth-failure-limit", owners.DefaultAuthFailuresPerMinute, "failed authentications (API requests without a valid token, dashboard sign-ins) per minute per client address on this node, in bursts of as many; past it 429 rate_limited before the token is looked up; requests that authenticate are never counted; 0: no limit")
	fs.IntVar(&c.MaxCalendars, "max-calendars-per-owner", domain.DefaultMaxCalendarsPerOwner, "refuse (429 quota_exceeded) an owner's new calendar past this many; 0: no limit")
	fs.IntVar(&c.MaxCalendarEntries, "max-calendar-entries", domain.DefaultMaxCalendarEntries, "refuse (400 naming the list) a calendar of more dates, weekdays and ranges than this, together; 0: no limit")
	fs.IntVar(&c.MaxBulkPerCall, "max-bulk-per-call", owners.DefaultBulkPerCall, "most alarms one owner's bulk call (POST /v1/alarms/bulk, a dry run too) goes through; the answer's next_cursor goes on")
	fs.IntVar(&c.MaxBulkCalls, "max-bulk-calls", owners.DefaultBulkCalls, "most owners' bulk calls (actions, dry runs, redeliveries) this node runs at once, one more answered 503 with Retry-After; 0: no limit")
	fs.BoolVar(&c.ShowPayloads, "admin-show-payloads", false, "show payloads and wake messages in admin views (default: redacted to size and SHA-256)")
	fs.BoolVar(&c.UI, "ui", true, "serve the web dashboard at /ui/ (sign in with an admin token); --ui=false answers 404 there")
	fs.StringVar(&c.LogFormat, "log-format", "console", "log format: console or json")
	fs.StringVar(&c.LogLevel, "log-level", "info", "log level: debug, info, warn or error")
}

// checkWakeSecretStrength refuses a wake secret with fewer bytes of key than an
// endpoint's secret may have (domain.MinEndpointSecretLen): a short key is found by
// trying keys against one signed wake. It names the flag and the secret's place, never
// the secret.
func (c *serveConfig) checkWakeSecretStrength() error {
	source := "--wake-secret (CHRONOS_WAKE_SECRET)"
	if c.WakeSecretFile != "" {
		source = "--wake-secret-file " + c.WakeSecretFile
	}
	for i, s := range c.WakeSecrets.Values {
		if domain.WeakSecret(s) {
			which := ""
			if len(c.WakeSecrets.Values) > 1 {
				which = fmt.Sprintf(" (secret %d of %d)", i+1, len(c.WakeSecrets.Values))
			}
			return fmt.Errorf("%s%s is too short: a wake secret needs at least %d bytes of key (a whsec_ secret, %d once decoded); make one with: openssl rand -base64 32",
				source, which, domain.MinEndpointSecretLen, domain.MinEndpointSecretLen)
		}
	}
	return nil
}

// dispatcher returns the dispatcher configuration for worker id.
func (c *serveConfig) dispatcher(worker string) dispatch.Config {
	return dispatch.Config{
		Worker:           worker,
		Tick:             c.Tick,
		Lease:            c.Lease,
		Batch:            c.Batch,
		Concurrency:      c.Concurrency,
		DeliveryTimeout:  c.DeliveryTimeout,
		DrainTimeout:     c.DrainTimeout,
		OwnerMaxInFlight: c.OwnerMaxInFlight,
		UnfairClaims:     c.UnfairClaims,
		Policy:           domain.Policy{Backoff: domain.Backoff{Base: c.BackoffBase, Cap: c.BackoffCap}, MisfireThreshold: c.MisfireThreshold},
	}
}

// retention returns the retention policy for worker id.
func (c *serveConfig) retention(worker string) chores.RetentionConfig {
	return chores.RetentionConfig{Retention: c.Retention, EventsPerAlarm: c.EventsPerAlarm, Holder: worker}
}

// validate refuses, with every reason at once, a configuration chronos must not run with.
func (c *serveConfig) validate() error {
	var errs []error
	if !c.Dev {
		if c.WakeURL == "" {
			errs = append(errs, errors.New("--wake-url (CHRONOS_WAKE_URL) is required: it is where wakes are delivered; use --dev to print them instead"))
		} else if u, err := url.Parse(c.WakeURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("--wake-url %q must be an absolute http:// or https:// URL", c.WakeURL))
		}
	}
	switch {
	case c.WakeSecretFile != "" && len(c.WakeSecrets.Values) > 0:
		errs = append(errs, errors.New("give --wake-secret (CHRONOS_WAKE_SECRET) or --wake-secret-file (CHRONOS_WAKE_SECRET_FILE), not both"))
	case c.WakeSecretFile != "":
		secrets, warning, err := readWakeSecretFile(c.WakeSecretFile)
		if err != nil {
			errs = append(errs, err)
		}
		if warning != "" {
			c.warnings = append(c.warnings, warning)
		}
		c.WakeSecrets.Values = secrets // what the waker signs with, as if given by --wake-secret
	case !c.Dev && len(c.WakeSecrets.Values) == 0:
		errs = append(errs, errors.New("--wake-secret (CHRONOS_WAKE_SECRET) is required, or --wake-secret-file: receivers verify the Chronos-Signature header with it"))
	}
	if !c.Dev {
		if err := c.checkWakeSecretStrength(); err != nil {
			errs = append(errs, err)
		}
	}
	if c.StoreListenURL != "" && !isPostgresURL(c.Store) {
		errs = append(errs, errors.New("--store-listen-url (CHRONOS_STORE_LISTEN_URL) is for a PostgreSQL --store behind a transaction pooler"))
	}
	if c.StoreReplica != "" && (!isPostgresURL(c.Store) || !isPostgresURL(c.StoreReplica)) {
		errs = append(errs, errors.New("--store-replica (CHRONOS_STORE_REPLICA) is for a PostgreSQL --store: give a postgres:// URL of a hot standby of its database"))
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		errs = append(errs, errors.New("--tls-cert and --tls-key go together: give both (HTTPS) or neither (HTTP)"))
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("--public-url %q must be an absolute http:// or https:// URL", c.PublicURL))
		}
	}
	if c.OTelEndpoint != "" {
		if u, err := url.Parse(c.OTelEndpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("--otel-endpoint %q must be an absolute http:// or https:// URL, e.g. http://collector:4318", c.OTelEndpoint))
		}
	}
	if _, err := c.endpointAllowCIDRs(); err != nil {
		errs = append(errs, err)
	}
	if c.BreakerFailures < 1 {
		errs = append(errs, fmt.Errorf("--endpoint-breaker-failures must be at least 1, got %d", c.BreakerFailures))
	}
	if c.BreakerCooldown <= 0 || c.BreakerCooldown > 10*time.Minute {
		errs = append(errs, fmt.Errorf("--endpoint-breaker-cooldown must be above 0 and at most 10m, got %s", c.BreakerCooldown))
	}
	if c.MaxFailures < domain.MinMaxFailures || c.MaxFailures > domain.MaxMaxFailures {
		errs = append(errs, fmt.Errorf("--max-failures must be between %d and %d, got %d", domain.MinMaxFailures, domain.MaxMaxFailures, c.MaxFailures))
	}
	if c.MaxActive < 0 {
		errs = append(errs, fmt.Errorf("--max-active-alarms-per-owner must be 0 (no quota) or more, got %d", c.MaxActive))
	}
	if c.MaxCalendars < 0 {
		errs = append(errs, fmt.Errorf("--max-calendars-per-owner must be 0 (no limit) or more, got %d", c.MaxCalendars))
	}
	if c.MaxCalendarEntries < 0 {
		errs = append(errs, fmt.Errorf("--max-calendar-entries must be 0 (no limit) or more, got %d", c.MaxCalendarEntries))
	}
	if c.MaxBulkPerCall < 1 || c.MaxBulkPerCall > maxBulkPerCall {
		errs = append(errs, fmt.Errorf("--max-bulk-per-call must be 1 to %d, got %d", maxBulkPerCall, c.MaxBulkPerCall))
	}
	if c.MaxBulkCalls < 0 {
		errs = append(errs, fmt.Errorf("--max-bulk-calls must be 0 (no limit) or more, got %d", c.MaxBulkCalls))
	}
	if c.QuotaRefresh <= 0 {
		errs = append(errs, fmt.Errorf("--quota-refresh must be above 0, got %s", c.QuotaRefresh))
	}
	if c.AttemptBodyBytes < 0 || c.AttemptBodyBytes > domain.MaxReceiptBody {
		errs = append(errs, fmt.Errorf("--attempt-body-bytes must be 0 (keep no body) to %d, got %d", domain.MaxReceiptBody, c.AttemptBodyBytes))
	}
	if c.WakeURLMaxInFlight < -1 {
		errs = append(errs, fmt.Errorf("--wake-url-max-in-flight must be -1 (no limit), 0 (128) or more, got %d", c.WakeURLMaxInFlight))
	}
	if c.OwnerMaxInFlight < 0 {
		errs = append(errs, fmt.Errorf("--owner-max-in-flight must be 0 (half of --concurrency) or more, got %d", c.OwnerMaxInFlight))
	}
	if c.RateLimit < 0 {
		errs = append(errs, fmt.Errorf("--rate-limit must be 0 (no limit) or more, got %d", c.RateLimit))
	}
	if c.AuthFailures < 0 {
		errs = append(errs, fmt.Errorf("--auth-failure-limit must be 0 (no limit) or more, got %d", c.AuthFailures))
	}
	if r := webhook.ReceiverErrors(c.ReceiverErrors); r != webhook.ReceiverErrorsStatus && r != webhook.ReceiverErrorsFull {
		errs = append(errs, fmt.Errorf("--receiver-errors must be status or full, got %q", c.ReceiverErrors))
	}
	if c.BackupDir != "" {
		if fi, err := os.Stat(c.BackupDir); err != nil {
			errs = append(errs, fmt.Errorf("--backup-dir %q: %w", c.BackupDir, err))
		} else if !fi.IsDir() {
			errs = append(errs, fmt.Errorf("--backup-dir %q is not a directory", c.BackupDir))
		}
	}
	if c.LogFormat != "console" && c.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("--log-format must be console or json, got %q", c.LogFormat))
	}
	if err := c.dispatcher("check").Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.retention("check").Validate(); err != nil {
		errs = append(errs, fmt.Errorf("--retention / --events-per-alarm: %w", err))
	}
	return errors.Join(errs...)
}

// loopbackRanges are what --dev lets endpoints reach besides --endpoint-allow-cidr: a
// receiver on the developer's machine.
var loopbackRanges = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// endpointAllowCIDRs parses --endpoint-allow-cidr, with loopback under --dev.
func (c *serveConfig) endpointAllowCIDRs() ([]netip.Prefix, error) {
	var allow []netip.Prefix
	for _, v := range c.EndpointAllowCIDRs.Values {
		p, err := netip.ParsePrefix(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("--endpoint-allow-cidr %q must be an address range in CIDR form, e.g. 10.20.0.0/16 or fd00::/8", v)
		}
		allow = append(allow, p)
	}
	if c.Dev {
		allow = append(allow, loopbackRanges...)
	}
	return allow, nil
}

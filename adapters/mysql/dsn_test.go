package mysql

import (
	"strings"
	"testing"
	"time"
)

func TestParseURL(t *testing.T) {
	cc, err := parseURL("mysql://chronos:s3cr%40t%2Fx@db.example:3307/chronos?timeout=5s&tls=true&sql_mode=TRADITIONAL&pool_max_conns=12")
	if err != nil {
		t.Fatal(err)
	}
	cfg := cc.driver
	checks := []struct {
		name      string
		got, want any
	}{
		{"User", cfg.User, "chronos"},
		{"Passwd", cfg.Passwd, "s3cr@t/x"},
		{"Net", cfg.Net, "tcp"},
		{"Addr", cfg.Addr, "db.example:3307"},
		{"DBName", cfg.DBName, "chronos"},
		{"ParseTime", cfg.ParseTime, true},
		{"Loc", cfg.Loc, time.UTC},
		{"MultiStatements", cfg.MultiStatements, false},
		{"ClientFoundRows", cfg.ClientFoundRows, true},
		{"InterpolateParams", cfg.InterpolateParams, true},
		{"Timeout", cfg.Timeout, 5 * time.Second},
		{"TLSConfig", cfg.TLSConfig, "true"},
		{"time_zone", cfg.Params["time_zone"], "'+00:00'"},
		{"sql_mode (a session variable, passed through)", cfg.Params["sql_mode"], "TRADITIONAL"},
		{"pool_max_conns", cc.maxOpenConns, 12},
		{"pool_max_conns is not a session variable", cfg.Params["pool_max_conns"], ""},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestParseURLDefaultsAndVariants(t *testing.T) {
	cases := []struct {
		url               string
		net, addr, user   string
		interpolateParams bool
	}{
		{"mysql://root@127.0.0.1/test", "tcp", "127.0.0.1:3306", "root", true},
		{"mysql://root@[::1]:3306/test", "tcp", "[::1]:3306", "root", true},
		{"mysql://u:p@localhost/test?socket=/run/mysqld/mysqld.sock", "unix", "/run/mysqld/mysqld.sock", "u", true},
		{"mysql://u@h/test?interpolateParams=false", "tcp", "h:3306", "u", false},
		// Managed parameters may repeat the value the store needs.
		{"mysql://u@h/test?parseTime=true&loc=UTC&multiStatements=false&clientFoundRows=true", "tcp", "h:3306", "u", true},
		{"mysql://u@h/test?charset=utf8mb4&collation=utf8mb4_unicode_ci", "tcp", "h:3306", "u", true},
	}
	for _, c := range cases {
		cc, err := parseURL(c.url)
		if err != nil {
			t.Errorf("parseURL(%q): %v", c.url, err)
			continue
		}
		if cc.maxOpenConns != defaultMaxConns() {
			t.Errorf("parseURL(%q): pool size %d, want the default %d", c.url, cc.maxOpenConns, defaultMaxConns())
		}
		cfg := cc.driver
		if cfg.Net != c.net || cfg.Addr != c.addr || cfg.User != c.user || cfg.InterpolateParams != c.interpolateParams {
			t.Errorf("parseURL(%q) = net %q addr %q user %q interpolateParams %v, want %q %q %q %v",
				c.url, cfg.Net, cfg.Addr, cfg.User, cfg.InterpolateParams, c.net, c.addr, c.user, c.interpolateParams)
		}
		if !cfg.ParseTime || cfg.Loc != time.UTC || cfg.MultiStatements || !cfg.ClientFoundRows {
			t.Errorf("parseURL(%q) lost a managed setting: %+v", c.url, cfg)
		}
	}
}

func TestParseURLRefuses(t *testing.T) {
	cases := []struct{ url, wantInError string }{
		{"postgres://u@h/db", "scheme"},
		{"mysql://u@h", "database name"},
		{"mysql://u@h/", "database name"},
		{"mysql://u@h/a/b", "database name"},
		{"mysql://u@/db", "missing host"},
		{"mysql://u@h/db?parseTime=false", "parseTime"},
		{"mysql://u@h/db?loc=Local", "loc"},
		{"mysql://u@h/db?multiStatements=true", "multiStatements"},
		{"mysql://u@h/db?clientFoundRows=false", "clientFoundRows"},
		{"mysql://u@h/db?time_zone=%27SYSTEM%27", "time_zone"},
		{"mysql://u@h/db?charset=latin1", "utf8mb4"},
		{"mysql://u@h/db?collation=latin1_swedish_ci", "utf8mb4"},
		{"mysql://u@h/db?timeout=soon", "invalid duration"},
		{"mysql://u@h/db?pool_max_conns=0", "pool_max_conns"},
		{"mysql://u@h/db?pool_max_conns=many", "pool_max_conns"},
	}
	for _, c := range cases {
		_, err := parseURL(c.url)
		if err == nil {
			t.Errorf("parseURL(%q) succeeded, want an error about %s", c.url, c.wantInError)
			continue
		}
		if !strings.Contains(err.Error(), c.wantInError) || !strings.HasPrefix(err.Error(), "mysql: ") {
			t.Errorf("parseURL(%q) = %q, want a \"mysql: \" error naming %s", c.url, err, c.wantInError)
		}
	}
}

func TestParseURLErrorsHideThePassword(t *testing.T) {
	for _, u := range []string{
		"mysql://u:hunter2@h:port/db", // bad port: url.Parse fails
		"mysql://u:hunter2@h/db?parseTime=false",
		"mysql://u:hunter2@/db",
	} {
		_, err := parseURL(u)
		if err == nil {
			t.Fatalf("parseURL(%q) succeeded", u)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ParseURL error repeats the password: %q", err)
		}
	}
}

package mysql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chronoshq/chronos/internal/testca"
)

func TestParseURLTLS(t *testing.T) {
	ca := testca.New(t, t.TempDir(), "chronos")
	cases := []struct {
		name, query      string
		wantTLS          bool
		serverName       string
		skipVerify       bool
		roots, clientKey bool
		fallback         bool
	}{
		{"no TLS parameters", "", false, "", false, false, false, false},
		{"disabled", "ssl-mode=DISABLED", false, "", false, false, false, false},
		{"preferred", "ssl-mode=PREFERRED", true, "", true, false, false, true},
		{"required", "ssl-mode=required", true, "", true, false, false, false},
		{"required with a client certificate", "ssl-mode=REQUIRED&ssl-cert=" + ca.ClientCertFile + "&ssl-key=" + ca.ClientKeyFile, true, "", true, false, true, false},
		{"verify CA", "ssl-mode=VERIFY_CA&ssl-ca=" + ca.CertFile, true, "", true, false, false, false},
		{"verify identity", "ssl-mode=VERIFY_IDENTITY&ssl-ca=" + ca.CertFile, true, "db.example", false, true, false, false},
		{"verify identity, system roots", "ssl-mode=verify_identity", true, "db.example", false, false, false, false},
		{"a CA alone means verify identity", "ssl-ca=" + ca.CertFile, true, "db.example", false, true, false, false},
		{"everything", "ssl-mode=VERIFY_IDENTITY&ssl-ca=" + ca.CertFile + "&ssl-cert=" + ca.ClientCertFile + "&ssl-key=" + ca.ClientKeyFile, true, "db.example", false, true, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cc, err := parseURL("mysql://u:p@db.example:3307/chronos?" + c.query)
			if err != nil {
				t.Fatal(err)
			}
			cfg := cc.driver
			for _, name := range []string{"ssl-mode", "ssl-ca", "ssl-cert", "ssl-key"} {
				if _, ok := cfg.Params[name]; ok {
					t.Errorf("%s passed on as a session variable", name)
				}
			}
			if cfg.AllowFallbackToPlaintext != c.fallback {
				t.Errorf("AllowFallbackToPlaintext = %v, want %v", cfg.AllowFallbackToPlaintext, c.fallback)
			}
			if (cfg.TLS != nil) != c.wantTLS {
				t.Fatalf("TLS = %v, want TLS %v", cfg.TLS, c.wantTLS)
			}
			if !c.wantTLS {
				return
			}
			if cfg.TLS.ServerName != c.serverName || cfg.TLS.InsecureSkipVerify != c.skipVerify ||
				(cfg.TLS.RootCAs != nil) != c.roots || (len(cfg.TLS.Certificates) == 1) != c.clientKey {
				t.Errorf("TLS = server name %q, skip verify %v, roots %v, client certificates %d; want %q, %v, %v, %v",
					cfg.TLS.ServerName, cfg.TLS.InsecureSkipVerify, cfg.TLS.RootCAs != nil, len(cfg.TLS.Certificates),
					c.serverName, c.skipVerify, c.roots, c.clientKey)
			}
		})
	}
}

// The driver's own tls parameter builds its configuration when the connector is made,
// for the URL's host: parseURL must not keep the one ParseDSN built for its placeholder
// address (whose name, 127.0.0.1, no real server's certificate holds).
func TestParseURLDriverTLSIsForTheURLsHost(t *testing.T) {
	cc, err := parseURL("mysql://u@db.example:3307/chronos?tls=true")
	if err != nil {
		t.Fatal(err)
	}
	if cc.driver.TLSConfig != "true" || cc.driver.TLS != nil {
		t.Fatalf("TLSConfig %q, TLS %+v: want \"true\" and none built yet", cc.driver.TLSConfig, cc.driver.TLS)
	}
	cc, err = parseURL("mysql://u@db.example:3307/chronos?tls=preferred")
	if err != nil {
		t.Fatal(err)
	}
	if !cc.driver.AllowFallbackToPlaintext {
		t.Error("tls=preferred lost its fallback to plaintext")
	}
}

func TestParseURLTLSRefuses(t *testing.T) {
	dir := t.TempDir()
	ca := testca.New(t, dir, "chronos")
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ query, wantInError string }{
		{"ssl-mode=VERIFY_FULL", "ssl-mode=VERIFY_FULL"},
		{"ssl-mode=", "ssl-mode"},
		{"ssl-mode=REQUIRED&ssl-mode=DISABLED", "ssl-mode"},
		{"tls=true&ssl-mode=REQUIRED", "tls and the ssl-* parameters"},
		{"tls=skip-verify&ssl-ca=" + ca.CertFile, "tls and the ssl-* parameters"},
		{"ssl-mode=DISABLED&ssl-ca=" + ca.CertFile, "DISABLED"},
		{"ssl-mode=REQUIRED&ssl-ca=" + ca.CertFile, "ssl-ca with ssl-mode=REQUIRED"},
		{"ssl-mode=PREFERRED&ssl-ca=" + ca.CertFile, "ssl-ca with ssl-mode=PREFERRED"},
		{"ssl-mode=VERIFY_CA", "needs ssl-ca"},
		{"ssl-cert=" + ca.ClientCertFile, "ssl-key"},
		{"ssl-key=" + ca.ClientKeyFile, "ssl-cert"},
		{"ssl-ca=" + filepath.Join(dir, "missing.pem"), "ssl-ca"},
		{"ssl-ca=" + notPEM, "ssl-ca=" + notPEM + " holds no PEM certificate"},
		{"ssl-cert=" + ca.ClientCertFile + "&ssl-key=" + ca.CertFile, "ssl-cert"},
		{"socket=/run/mysqld/mysqld.sock&ssl-mode=VERIFY_IDENTITY", "needs a host"},
	}
	for _, c := range cases {
		host := "db.example"
		if strings.Contains(c.query, "socket=") {
			host = ""
		}
		_, err := parseURL("mysql://u:hunter2@" + host + "/chronos?" + c.query)
		if err == nil {
			t.Errorf("%s: accepted, want an error naming %q", c.query, c.wantInError)
			continue
		}
		if !strings.Contains(err.Error(), c.wantInError) || !strings.HasPrefix(err.Error(), "mysql: ") {
			t.Errorf("%s: %q, want a \"mysql: \" error naming %q", c.query, err, c.wantInError)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the error repeats the password: %q", c.query, err)
		}
	}
}

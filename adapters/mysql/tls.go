package mysql

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// The TLS parameters of a store URL are the MySQL client's own (mysql --ssl-mode,
// --ssl-ca, --ssl-cert, --ssl-key; the same names in MySQL Shell's connection URIs and
// Connector/J), so a URL reads as the command line an operator already uses:
//
//	ssl-mode=DISABLED|PREFERRED|REQUIRED|VERIFY_CA|VERIFY_IDENTITY
//	ssl-ca=/path/ca.pem        the CA the server's certificate must chain to
//	ssl-cert=/path/client.pem  a client certificate, with
//	ssl-key=/path/client.key   its key
//
// VERIFY_IDENTITY is PostgreSQL's verify-full: the certificate chains to ssl-ca (or the
// system's roots) and names the URL's host. The driver's own tls parameter still works
// (tls=true verifies against the system's roots); a URL may use one or the other.
const (
	sslModeParam = "ssl-mode"
	sslCAParam   = "ssl-ca"
	sslCertParam = "ssl-cert"
	sslKeyParam  = "ssl-key"
	driverTLS    = "tls"
)

// SSL modes, as MySQL's client spells them (case does not matter in a URL).
const (
	sslDisabled       = "DISABLED"
	sslPreferred      = "PREFERRED"
	sslRequired       = "REQUIRED"
	sslVerifyCA       = "VERIFY_CA"
	sslVerifyIdentity = "VERIFY_IDENTITY"
)

// tlsParams are the TLS parameters of a store URL.
type tlsParams struct {
	mode, caFile, certFile, keyFile string
}

// takeTLSParams removes the ssl-* parameters from query and checks they agree with one
// another and with the driver's tls parameter. Files given without ssl-mode mean
// VERIFY_IDENTITY: naming a CA asks for it to be checked, and the strictest check is
// the one that is also right.
func takeTLSParams(query url.Values) (tlsParams, error) {
	var p tlsParams
	for _, f := range []struct {
		name string
		to   *string
	}{{sslModeParam, &p.mode}, {sslCAParam, &p.caFile}, {sslCertParam, &p.certFile}, {sslKeyParam, &p.keyFile}} {
		if vs, ok := query[f.name]; ok {
			if len(vs) != 1 || vs[0] == "" {
				return p, fmt.Errorf("mysql: store URL: %s must be given once, with a value", f.name)
			}
			*f.to = vs[0]
			query.Del(f.name)
		}
	}
	filesGiven := p.caFile != "" || p.certFile != "" || p.keyFile != ""
	if (p.mode != "" || filesGiven) && query.Has(driverTLS) {
		return p, fmt.Errorf("mysql: store URL: %s and the ssl-* parameters both set TLS: use ssl-mode (docs/mysql.md, \"TLS\")", driverTLS)
	}
	given := p.mode
	p.mode = strings.ToUpper(p.mode)
	switch p.mode {
	case "":
		if filesGiven {
			p.mode = sslVerifyIdentity
		}
	case sslDisabled, sslPreferred, sslRequired, sslVerifyCA, sslVerifyIdentity:
	default:
		return p, fmt.Errorf("mysql: store URL: %s=%s: want one of %s, %s, %s, %s, %s",
			sslModeParam, given, sslDisabled, sslPreferred, sslRequired, sslVerifyCA, sslVerifyIdentity)
	}
	if (p.certFile == "") != (p.keyFile == "") {
		return p, fmt.Errorf("mysql: store URL: %s and %s go together: a client certificate needs its key", sslCertParam, sslKeyParam)
	}
	switch {
	case p.mode == sslDisabled && filesGiven:
		return p, fmt.Errorf("mysql: store URL: %s=%s with TLS files: the files would be ignored", sslModeParam, sslDisabled)
	case p.caFile != "" && (p.mode == sslPreferred || p.mode == sslRequired):
		return p, fmt.Errorf("mysql: store URL: %s with %s=%s: the CA would not be checked; use %s or %s",
			sslCAParam, sslModeParam, p.mode, sslVerifyCA, sslVerifyIdentity)
	case p.mode == sslVerifyCA && p.caFile == "":
		return p, fmt.Errorf("mysql: store URL: %s=%s needs %s", sslModeParam, sslVerifyCA, sslCAParam)
	}
	return p, nil
}

// config is the TLS configuration the parameters name for a server whose host name is
// host; nil for DISABLED or no parameters. preferred: fall back to plaintext when the
// server offers no TLS.
func (p tlsParams) config(host string) (cfg *tls.Config, preferred bool, err error) {
	if p.mode == "" || p.mode == sslDisabled {
		return nil, false, nil
	}
	cfg = &tls.Config{MinVersion: tls.VersionTLS12}
	if p.certFile != "" {
		pair, err := tls.LoadX509KeyPair(p.certFile, p.keyFile)
		if err != nil {
			return nil, false, fmt.Errorf("mysql: store URL: %s=%s, %s=%s: %w", sslCertParam, p.certFile, sslKeyParam, p.keyFile, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	var roots *x509.CertPool
	if p.caFile != "" {
		pem, err := os.ReadFile(p.caFile)
		if err != nil {
			return nil, false, fmt.Errorf("mysql: store URL: %s: %w", sslCAParam, err)
		}
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, false, fmt.Errorf("mysql: store URL: %s=%s holds no PEM certificate", sslCAParam, p.caFile)
		}
	}
	switch p.mode {
	case sslPreferred, sslRequired:
		// Encrypted, the server unauthenticated: MySQL's meaning of these modes.
		cfg.InsecureSkipVerify = true
	case sslVerifyCA:
		// The chain is checked, the name is not: crypto/tls checks both or neither.
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = func(state tls.ConnectionState) error { return verifyChain(state, roots) }
	case sslVerifyIdentity:
		if host == "" {
			return nil, false, fmt.Errorf("mysql: store URL: %s=%s needs a host in the URL to check the certificate's names against", sslModeParam, sslVerifyIdentity)
		}
		cfg.RootCAs, cfg.ServerName = roots, host
	}
	return cfg, p.mode == sslPreferred, nil
}

// verifyChain checks the server's certificate chains to roots, whatever names it holds.
func verifyChain(state tls.ConnectionState, roots *x509.CertPool) error {
	if len(state.PeerCertificates) == 0 {
		return errors.New("mysql: the server presented no certificate")
	}
	intermediates := x509.NewCertPool()
	for _, c := range state.PeerCertificates[1:] {
		intermediates.AddCert(c)
	}
	_, err := state.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: intermediates})
	if err != nil {
		return fmt.Errorf("mysql: server certificate (%s=%s): %w", sslModeParam, sslVerifyCA, err)
	}
	return nil
}

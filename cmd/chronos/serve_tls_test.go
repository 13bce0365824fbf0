package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/chronoshq/chronos/internal/flagenv"
)

// selfSigned writes a certificate for 127.0.0.1 with this serial, and its key, to
// certFile and keyFile, and returns the certificate (for a client's roots).
func selfSigned(t *testing.T, serial int64, certFile, keyFile string) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "chronos test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(path, typ string, b []byte) {
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(certFile, "CERTIFICATE", der)
	write(keyFile, "PRIVATE KEY", keyDER)
	cert, _ := x509.ParseCertificate(der)
	return cert
}

// servedSerial dials addr over TLS, trusting roots, and returns the serial of the
// certificate the server presented.
func servedSerial(t *testing.T, addr string, roots ...*x509.Certificate) int64 {
	t.Helper()
	pool := x509.NewCertPool()
	for _, c := range roots {
		pool.AddCert(c)
	}
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatalf("TLS dial %s: %v", addr, err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

// On SIGHUP the server takes the renewed pair for new connections; a pair that fails
// to load is logged and the previous one kept.
func TestTLSCertificateReloadsOnSIGHUP(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	first := selfSigned(t, 1, certFile, keyFile)
	r, err := newCertReloader(certFile, keyFile, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", r.tlsConfig())
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.NotFoundHandler(), ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	reloaded := make(chan error, 1)
	r.watchSIGHUP(ctx, reloaded)
	hup := func() error {
		t.Helper()
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-reloaded:
			return err
		case <-time.After(5 * time.Second):
			t.Fatal("no reload 5s after SIGHUP")
			return nil
		}
	}
	addr := ln.Addr().String()
	if got := servedSerial(t, addr, first); got != 1 {
		t.Fatalf("served serial %d, want 1", got)
	}

	second := selfSigned(t, 2, certFile, keyFile)
	if err := hup(); err != nil {
		t.Fatalf("reload of a good pair: %v", err)
	}
	if got := servedSerial(t, addr, first, second); got != 2 {
		t.Errorf("after SIGHUP: serial %d, want the renewed 2", got)
	}

	if err := os.WriteFile(keyFile, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := hup(); err == nil || !strings.Contains(err.Error(), "--tls-key") {
		t.Errorf("reload of a broken pair = %v, want an error naming --tls-key", err)
	}
	if got := servedSerial(t, addr, first, second); got != 2 {
		t.Errorf("after a failed reload: serial %d, want the previous 2 kept", got)
	}
}

// serve with --tls-cert/--tls-key answers HTTPS on --listen, and --public-url https://
// adds Strict-Transport-Security.
func TestServeOverTLS(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	cert := selfSigned(t, 7, certFile, keyFile)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--dev", "--store", "sqlite://" + filepath.Join(dir, "c.db"), "--listen", addr,
			"--tls-cert", certFile, "--tls-key", keyFile, "--public-url", "https://chronos.example"}, &bytes.Buffer{}, &bytes.Buffer{})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	var resp *http.Response
	for deadline := time.Now().Add(15 * time.Second); ; {
		if resp, err = client.Get("https://" + addr + "/healthz"); err == nil || time.Now().After(deadline) {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("serve stopped: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err != nil {
		t.Fatalf("GET https://%s/healthz: %v", addr, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.TLS == nil {
		t.Errorf("healthz over TLS: %d (tls %t)", resp.StatusCode, resp.TLS != nil)
	}
	if got := resp.Header.Get("Strict-Transport-Security"); got != "max-age=31536000" {
		t.Errorf("Strict-Transport-Security = %q, want max-age=31536000", got)
	}
	// Go's TLS server answers a plain request with a bare 400, never the API.
	if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP on the TLS listener: %d, want 400", resp.StatusCode)
		}
	}
}

// --wake-secret-file gives the secrets one a line (comments and blank lines skipped),
// as repeated --wake-secret do; with --wake-secret as well it is refused; a file others
// may read is a warning. CHRONOS_WAKE_SECRET carries several, comma-separated.
func TestWakeSecretSources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "secrets")
	if err := os.WriteFile(file, []byte("# rotation: new first\nnew-secret-of-24-bytes-or-more\n\n  old-secret-of-24-bytes-or-more  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	validated := func(args ...string) (serveConfig, error) {
		t.Helper()
		var cfg serveConfig
		fs := flagenv.New("serve", &bytes.Buffer{})
		cfg.register(fs)
		if err := flagenv.Parse(fs, append([]string{"--wake-url", "http://127.0.0.1:9/"}, args...)); err != nil {
			t.Fatal(err)
		}
		return cfg, cfg.validate()
	}
	cfg, err := validated("--wake-secret-file", file)
	if err != nil || fmt.Sprint(cfg.WakeSecrets.Values) != "[new-secret-of-24-bytes-or-more old-secret-of-24-bytes-or-more]" || len(cfg.warnings) != 0 {
		t.Errorf("from the file: %q, warnings %q, %v; want [new-secret-of-24-bytes-or-more old-secret-of-24-bytes-or-more], none", cfg.WakeSecrets.Values, cfg.warnings, err)
	}
	if _, err := validated("--wake-secret-file", file, "--wake-secret", "x"); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("file and flag: %v, want refused (not both)", err)
	}
	empty := filepath.Join(dir, "empty")
	_ = os.WriteFile(empty, []byte("# nothing\n\n"), 0o600)
	if _, err := validated("--wake-secret-file", empty); err == nil || !strings.Contains(err.Error(), "holds no secret") {
		t.Errorf("a file of comments: %v, want refused (holds no secret)", err)
	}
	if _, err := validated("--wake-secret-file", filepath.Join(dir, "missing")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want refused (not exist)", err)
	}
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := validated("--wake-secret-file", file); len(cfg.warnings) != 1 || !strings.Contains(cfg.warnings[0], "chmod 600") {
		t.Errorf("a world-readable file: warnings %q, want one saying chmod 600", cfg.warnings)
	}
	t.Setenv("CHRONOS_WAKE_SECRET", "new-secret-of-24-bytes-or-more,old-secret-of-24-bytes-or-more")
	if cfg, err := validated(); err != nil || len(cfg.WakeSecrets.Values) != 2 {
		t.Errorf("CHRONOS_WAKE_SECRET=a,b: %q, %v; want two secrets", cfg.WakeSecrets.Values, err)
	}
	if _, err := validated("--wake-secret-file", file); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("CHRONOS_WAKE_SECRET and the file: %v, want refused (not both)", err)
	}
}

package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"go.uber.org/zap"
)

// certReloader serves --tls-cert/--tls-key and reads the pair again on SIGHUP, so a
// renewed certificate is taken without a restart. A pair that fails to load (a renewal
// written halfway, a key that does not match) is logged and the old one kept: a bad
// file must never take HTTPS down.
type certReloader struct {
	certFile, keyFile string
	log               *zap.Logger
	cert              atomic.Pointer[tls.Certificate]
}

// newCertReloader loads the pair once; a failure here is a start-up error.
func newCertReloader(certFile, keyFile string, log *zap.Logger) (*certReloader, error) {
	r := &certReloader{certFile: certFile, keyFile: keyFile, log: log}
	if err := r.reload(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *certReloader) reload() error {
	c, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return fmt.Errorf("--tls-cert %s / --tls-key %s: %w", r.certFile, r.keyFile, err)
	}
	r.cert.Store(&c)
	return nil
}

// getCertificate is tls.Config.GetCertificate: the pair loaded last.
func (r *certReloader) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return r.cert.Load(), nil
}

// tlsConfig is the server's: TLS 1.2 at least, the certificate from the reloader.
func (r *certReloader) tlsConfig() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: r.getCertificate}
}

// watchSIGHUP reloads the pair on every SIGHUP until ctx is done. done, when not nil,
// receives each reload's outcome (tests).
func (r *certReloader) watchSIGHUP(ctx context.Context, done chan<- error) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
			}
			err := r.reload()
			if err != nil {
				r.log.Error("SIGHUP: reloading the TLS certificate failed; still serving the previous one", zap.Error(err))
			} else {
				r.log.Info("SIGHUP: TLS certificate reloaded", zap.String("cert", r.certFile))
			}
			if done != nil {
				done <- err
			}
		}
	}()
}

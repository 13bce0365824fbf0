// Package testca makes, for a test, a certificate authority and the certificates a
// database server and its client present, written as PEM files the servers and the
// store URLs name (sslrootcert, ssl-ca, ...). Keys are ECDSA P-256: quick to make, and
// accepted by PostgreSQL's and MariaDB's OpenSSL.
package testca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority and the certificates it signed, each a PEM file in the
// directory New was given.
type CA struct {
	// CertFile is the authority's certificate: what a client trusts (sslrootcert,
	// ssl-ca) and a server checks client certificates against.
	CertFile string
	// ServerCertFile and ServerKeyFile are a server certificate for localhost and
	// 127.0.0.1 (in its subject alternative names, which verify-full checks).
	ServerCertFile, ServerKeyFile string
	// ClientCertFile and ClientKeyFile are a client certificate whose common name is
	// the user New was given (PostgreSQL's cert authentication maps it to the role).
	ClientCertFile, ClientKeyFile string
}

// New makes an authority, a server certificate and a client certificate for user,
// valid from an hour ago for a day, and writes them into dir (files named ca.crt,
// server.crt, server.key, client.crt, client.key; keys are readable by their owner
// only, as servers require).
func New(t testing.TB, dir, user string) *CA {
	t.Helper()
	now := time.Now()
	caKey := newKey(t)
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "chronos test CA " + now.Format(time.RFC3339Nano)},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatalf("testca: the authority's certificate: %v", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	ca := &CA{
		CertFile:       filepath.Join(dir, "ca.crt"),
		ServerCertFile: filepath.Join(dir, "server.crt"),
		ServerKeyFile:  filepath.Join(dir, "server.key"),
		ClientCertFile: filepath.Join(dir, "client.crt"),
		ClientKeyFile:  filepath.Join(dir, "client.key"),
	}
	writePEM(t, ca.CertFile, "CERTIFICATE", caDER, 0o644)

	leaf := func(serial int64, name string, usage x509.ExtKeyUsage, certFile, keyFile string, hosts ...string) {
		key := newKey(t)
		template := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: name},
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.Add(24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		}
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				template.IPAddresses = append(template.IPAddresses, ip)
			} else {
				template.DNSNames = append(template.DNSNames, h)
			}
		}
		der, err := x509.CreateCertificate(rand.Reader, template, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatalf("testca: certificate for %s: %v", name, err)
		}
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		writePEM(t, certFile, "CERTIFICATE", der, 0o644)
		writePEM(t, keyFile, "PRIVATE KEY", keyDER, 0o600)
	}
	leaf(2, "localhost", x509.ExtKeyUsageServerAuth, ca.ServerCertFile, ca.ServerKeyFile, "localhost", "127.0.0.1")
	leaf(3, user, x509.ExtKeyUsageClientAuth, ca.ClientCertFile, ca.ClientKeyFile)
	return ca
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("testca: key: %v", err)
	}
	return key
}

func writePEM(t testing.TB, path, kind string, der []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), mode); err != nil {
		t.Fatalf("testca: %v", err)
	}
}

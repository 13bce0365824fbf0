package admin

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// An admin view stands for each endpoint secret by a fingerprint: enough to tell an
// endpoint's secrets apart and to see that two endpoints share one (a rotation's
// progress), but no check of a guess. A plain SHA-256 let anyone with admin:read try
// candidate secrets offline, so a short one was found by brute force; the fingerprint
// is an HMAC keyed by a cluster key that no view shows, so only someone who can read
// the store can compute one, and the store holds the secrets themselves anyway.
//
// The key is a ports.StateStore value (made on first use, as the dashboard's session
// key is) rather than --wake-secret, which is optional, rotates, and is the node's
// config, not the cluster's; and rather than a random id stored per secret, which
// would change every store's secrets column.

// SecretFingerprintKeyName is the cluster value holding the fingerprints' key.
const SecretFingerprintKeyName = "endpoint_secret_fingerprint_key"

const fingerprintKeyLength = 32

// Fingerprint is the secret's fingerprint in admin views: the first 8 bytes of
// HMAC-SHA256 under the cluster's key, in hex. The same secret has the same
// fingerprint on every endpoint and node.
func (s *Endpoints) Fingerprint(ctx context.Context, secret string) (string, error) {
	key, err := s.fingerprintKey(ctx)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("chronos endpoint secret\x00"))
	m.Write([]byte(secret))
	return hex.EncodeToString(m.Sum(nil)[:8]), nil
}

// fingerprintKey loads the cluster's key, making one on first use. Two nodes making
// one at once both read back whichever write landed last, so they agree from then on.
func (s *Endpoints) fingerprintKey(ctx context.Context) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fpKey != nil {
		return s.fpKey, nil
	}
	st, ok, err := s.store.GetState(ctx, SecretFingerprintKeyName)
	if err != nil {
		return nil, err
	}
	if !ok {
		fresh := make([]byte, fingerprintKeyLength)
		_, _ = rand.Read(fresh) // never fails (crypto/rand)
		if err := s.store.PutState(ctx, SecretFingerprintKeyName, hex.EncodeToString(fresh)); err != nil {
			return nil, err
		}
		if st, ok, err = s.store.GetState(ctx, SecretFingerprintKeyName); err != nil || !ok {
			return nil, errors.Join(errors.New("app: the secret fingerprint key did not stick"), err)
		}
	}
	key, err := hex.DecodeString(st.Value)
	if err != nil || len(key) != fingerprintKeyLength {
		return nil, fmt.Errorf("app: the stored %s is malformed", SecretFingerprintKeyName)
	}
	s.fpKey = key
	return key, nil
}

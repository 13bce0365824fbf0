package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"testing"
	"time"
)

var (
	testSecret = []byte("s3cret")
	testBody   = []byte(`{"alarm_id":"x","payload":{"b": 1,  "a":[1, 2]}}`)
	signedAt   = time.Unix(1_750_000_000, 0)
)

func TestSignMatchesAnIndependentHMAC(t *testing.T) {
	m := hmac.New(sha256.New, testSecret)
	m.Write([]byte("1750000000." + string(testBody)))
	want := "t=1750000000,v1=" + hex.EncodeToString(m.Sum(nil))
	if got := Sign(testSecret, signedAt, testBody); got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

func TestVerifyAcceptsAFreshSignature(t *testing.T) {
	header := Sign(testSecret, signedAt, testBody)
	for _, now := range []time.Time{signedAt, signedAt.Add(4 * time.Minute), signedAt.Add(-4 * time.Minute)} {
		if err := Verify(testSecret, header, testBody, now, 0); err != nil {
			t.Fatalf("now %s: %v", now, err)
		}
	}
}

func TestVerifyAcceptsAnyMatchingV1(t *testing.T) {
	// A sender rotating secrets may sign with both; unknown schemes are ignored.
	other := Sign([]byte("old secret"), signedAt, testBody)
	header := other + ",v1=" + Sign(testSecret, signedAt, testBody)[len("t=1750000000,v1="):] + ",v9=zzz"
	if err := Verify(testSecret, header, testBody, signedAt, time.Minute); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyRejects(t *testing.T) {
	good := Sign(testSecret, signedAt, testBody)
	sig := good[len("t=1750000000,v1="):]
	tests := []struct {
		name   string
		secret []byte
		header string
		body   []byte
		now    time.Time
		want   error
	}{
		{"tampered body", testSecret, good, bytes.Replace(testBody, []byte(`"b": 1`), []byte(`"b": 2`), 1), signedAt, ErrSignatureMismatch},
		{"reformatted body", testSecret, good, bytes.ReplaceAll(testBody, []byte(" "), nil), signedAt, ErrSignatureMismatch},
		{"wrong secret", []byte("other"), good, testBody, signedAt, ErrSignatureMismatch},
		{"no secret", nil, good, testBody, signedAt, ErrNoSecret},
		{"old timestamp", testSecret, good, testBody, signedAt.Add(6 * time.Minute), ErrSignatureExpired},
		{"future timestamp", testSecret, good, testBody, signedAt.Add(-6 * time.Minute), ErrSignatureExpired},
		{"timestamp changed", testSecret, "t=1750000001,v1=" + sig, testBody, signedAt, ErrSignatureMismatch},
		{"empty header", testSecret, "", testBody, signedAt, ErrMalformedHeader},
		{"no signature", testSecret, "t=1750000000", testBody, signedAt, ErrMalformedHeader},
		{"no timestamp", testSecret, "v1=" + sig, testBody, signedAt, ErrMalformedHeader},
		{"not key=value", testSecret, "t=1750000000," + sig, testBody, signedAt, ErrMalformedHeader},
		{"bad timestamp", testSecret, "t=soon,v1=" + sig, testBody, signedAt, ErrMalformedHeader},
		{"negative timestamp", testSecret, "t=-1,v1=" + sig, testBody, signedAt, ErrMalformedHeader},
		{"two timestamps", testSecret, "t=1750000000,t=1750000000,v1=" + sig, testBody, signedAt, ErrMalformedHeader},
		{"bad hex", testSecret, "t=1750000000,v1=" + sig[:62] + "zz", testBody, signedAt, ErrMalformedHeader},
		{"short signature", testSecret, "t=1750000000,v1=" + sig[:32], testBody, signedAt, ErrMalformedHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify(tt.secret, tt.header, tt.body, tt.now, 5*time.Minute)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestVerifyDefaultTolerance(t *testing.T) {
	header := Sign(testSecret, signedAt, testBody)
	now := signedAt.Add(DefaultTolerance + time.Second)
	err := Verify(testSecret, header, testBody, now, 0)
	if !errors.Is(err, ErrSignatureExpired) {
		t.Fatalf("Verify = %v, want ErrSignatureExpired", err)
	}
	t.Log(err) // the detail an operator sees
}

func TestSignatureTimestampIsSeconds(t *testing.T) {
	header := Sign(testSecret, signedAt.Add(999*time.Millisecond), testBody)
	if want := "t=" + strconv.FormatInt(signedAt.Unix(), 10) + ","; header[:len(want)] != want {
		t.Fatalf("header %s does not start with %s", header, want)
	}
}

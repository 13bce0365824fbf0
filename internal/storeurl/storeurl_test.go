package storeurl

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// Every place a store URL can hold a secret is masked, and nothing else changes: the
// server, the database and the harmless parameters stay readable.
func TestRedact(t *testing.T) {
	cases := map[string]string{
		"postgres://chronos:s3cret@db:5432/x":                           "postgres://chronos:xxxxx@db:5432/x",
		"mysql://root@127.0.0.1:3306/test":                              "mysql://root@127.0.0.1:3306/test",
		"sqlite://chronos.db":                                           "sqlite://chronos.db",
		"sqlite:///var/lib/chronos/chronos.db?_pragma=foo":              "sqlite:///var/lib/chronos/chronos.db?_pragma=foo",
		"postgres://db/x?password=s3cret":                               "postgres://db/x?password=xxxxx",
		"postgres://db/x?sslmode=verify-full&sslpassword=k3y&user=u":    "postgres://db/x?sslmode=verify-full&sslpassword=xxxxx&user=u",
		"postgres://u:p@db/x?PASSWORD=a&Password=b&application_name=me": "postgres://u:xxxxx@db/x?PASSWORD=xxxxx&Password=xxxxx&application_name=me",
		"mysql://u@h/db?passwd=a&pwd=b&api_token=c&client_secret=d":     "mysql://u@h/db?passwd=xxxxx&pwd=xxxxx&api_token=xxxxx&client_secret=xxxxx",
		"postgres://db/x?application_name=a@b&password=s3cret":          "postgres://db/x?application_name=a@b&password=xxxxx",
		"postgres://u:pa?ss@db/x":                                       "postgres://xxxxx@db/x",
		"postgres://db/x?password=s3cret#frag":                          "postgres://db/x?password=xxxxx#frag",
		"postgres://db/x?password=":                                     "postgres://db/x?password=",
		"user:pw@host/db":                                               "user:xxxxx@host/db",
		"":                                                              "",
	}
	for in, want := range cases {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// An error that quotes a URL, or a secret of it alone, as written or decoded, is
// masked; errors.Is still finds its cause; an error that quotes nothing is unchanged.
func TestRedactError(t *testing.T) {
	store := "postgres://chronos:p%40ss-word@db/x?sslmode=bogus&password=query-s3cret%21"
	cause := fs.ErrPermission
	err := RedactError(errors.Join(cause, errors.New(`cannot parse `+"`"+store+"`"+`: sslmode is invalid; password "query-s3cret!" and p@ss-word`)), store)
	for _, secret := range []string{"query-s3cret", "p@ss-word", "p%40ss-word"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error still quotes %q: %v", secret, err)
		}
	}
	if !strings.Contains(err.Error(), "postgres://chronos:xxxxx@db/x?sslmode=bogus&password=xxxxx") {
		t.Errorf("the error does not name the store, redacted: %v", err)
	}
	if !errors.Is(err, cause) {
		t.Errorf("errors.Is(redacted, cause) = false: the cause is lost")
	}
	plain := errors.New("connection refused")
	if got := RedactError(plain, store); got != plain {
		t.Errorf("an error without a secret became %v", got)
	}
	if RedactError(nil, store) != nil {
		t.Error("RedactError(nil) is not nil")
	}
	// A secret too short to look for alone does not mangle the message.
	short := RedactError(errors.New("a bad parameter in postgres://db/x?password=ab"), "postgres://db/x?password=ab")
	if short.Error() != "a bad parameter in postgres://db/x?password=xxxxx" {
		t.Errorf("with a short secret: %v", short)
	}
}

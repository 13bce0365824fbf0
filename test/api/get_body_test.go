package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chronoshq/chronos/adapters/httpapi"
)

// A GET that carries a body anyway (some clients send one) is answered whole, and the
// connection stays open for the next request: the body, up to 1 MiB, is read and
// ignored. Past 256 KB net/http alone gave up on the body and closed the connection
// after the answer, and a client still sending its body could have that answer (the
// 148 KB document) cut by the reset.
func TestGetWithABodyIsAnsweredWholeOverKeepAlive(t *testing.T) {
	e := newEnv(t)
	conn, err := net.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	doc := httpapi.OpenAPIJSON()
	for i, c := range []struct {
		path, auth string
		size       int
		chunked    bool
	}{
		{"/openapi.json", "", 1, false},
		{"/openapi.json", "", 4 << 10, true},
		{"/openapi.json", "", 300 << 10, false},
		{"/healthz", "", 600 << 10, true},
		{"/v1/alarms", e.alice, 1 << 20, false},
		{"/openapi.json", "", 1 << 20, false},
		{"/openapi.json", "", 0, false},
	} {
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		// The body is written while the answer is read, as a client streaming it does.
		go func() { _, _ = conn.Write(getWithBody(c.path, c.auth, c.size, c.chunked)) }()
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("request %d (GET %s, %d-byte body): %v", i, c.path, c.size, err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("request %d (GET %s, %d-byte body): %d, %d bytes read, %v", i, c.path, c.size, res.StatusCode, len(body), err)
		}
		if c.path == "/openapi.json" && !bytes.Equal(body, doc) {
			t.Fatalf("request %d: the document arrived as %d bytes, want all %d", i, len(body), len(doc))
		}
		if res.Close {
			t.Fatalf("request %d (GET %s, %d-byte body): the server closes the connection after answering", i, c.path, c.size)
		}
	}
}

// A GET body over 1 MiB is refused before it is read any further: 413, and the
// connection is closed, since the rest of the body is still on its way.
func TestGetWithAnOversizedBodyIsRefused(t *testing.T) {
	e := newEnv(t)
	for _, chunked := range []bool{false, true} {
		conn, err := net.Dial("tcp", e.srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		go func() { _, _ = conn.Write(getWithBody("/openapi.json", "", 1<<20+1, chunked)) }()
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("chunked %v: %v", chunked, err)
		}
		var body struct {
			Error errorView `json:"error"`
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		conn.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge || err != nil || body.Error.Code != "payload_too_large" ||
			!strings.Contains(body.Error.Message, "takes no body") || !res.Close {
			t.Errorf("chunked %v: %d %+v (%v), close %v; want 413 payload_too_large saying a GET takes no body, connection closed",
				chunked, res.StatusCode, body.Error, err, res.Close)
		}
	}
}

// getWithBody is a GET of path carrying size bytes of body, by Content-Length or in
// chunks of 64 KiB.
func getWithBody(path, token string, size int, chunked bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: chronos\r\n", path)
	if token != "" {
		fmt.Fprintf(&b, "Authorization: Bearer %s\r\n", token)
	}
	body := bytes.Repeat([]byte("x"), size)
	if !chunked {
		if size > 0 {
			fmt.Fprintf(&b, "Content-Length: %d\r\n", size)
		}
		b.WriteString("\r\n")
		b.Write(body)
		return b.Bytes()
	}
	b.WriteString("Transfer-Encoding: chunked\r\n\r\n")
	for len(body) > 0 {
		n := min(len(body), 64<<10)
		fmt.Fprintf(&b, "%x\r\n%s\r\n", n, body[:n])
		body = body[n:]
	}
	b.WriteString("0\r\n\r\n")
	return b.Bytes()
}

package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The example, built and run as a program: its alarm's wake reaches its handler, its
// own route and chronos's API answer on one server, and it stops cleanly on SIGTERM.
func TestEmbedRuns(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "embed")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("building the example: %v", err)
	}
	cmd := exec.Command(bin, "--listen", "127.0.0.1:0", "--db", filepath.Join(dir, "embed.db"))
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(what string) string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the example exited before %s", what)
			}
			return l
		case <-time.After(20 * time.Second):
			t.Fatalf("no %s from the example", what)
		}
		return ""
	}
	m := regexp.MustCompile(`serving on (http://\S+) with token (chr_\S+)`).FindStringSubmatch(next("serving line"))
	if m == nil {
		t.Fatal("the example did not say where it serves")
	}
	base, token := m[1], m[2]
	if body := get(t, base+"/hello", ""); !strings.Contains(body, "own route") {
		t.Errorf("/hello = %q", body)
	}
	if body := get(t, base+"/v1/alarms", token); !strings.Contains(body, `"label":"hello"`) {
		t.Errorf("the API did not list the example's alarm: %s", body)
	}
	if wake := next("wake"); !strings.Contains(wake, `"hello" payload {"from":"embed"} (attempt 1)`) {
		t.Errorf("the handler printed %q", wake)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the example did not stop cleanly: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Error("the example did not stop on SIGTERM")
	}
}

func get(t *testing.T, url, token string) string {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

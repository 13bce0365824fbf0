// Package deploy holds the container image recipes and the systemd unit; this test
// builds the image the way `make image` does and runs it.
package deploy

import (
	"bytes"
	"context"
	"crypto/rand"
	"debug/buildinfo"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The image of deploy/Dockerfile.local, built with podman from the static binary:
// scratch, a non-root user, and a healthcheck that asks /healthz through the binary
// itself. It serves, its healthcheck passes, and the non-root user can write its store
// on /data. Without a working podman the test skips, saying why.
func TestImageBuildsAndRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: building an image takes a while")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	podman, run := podmanOrSkip(t, ctx)

	// The build context `make image` stages: the static binary, CA roots, an empty /data.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", filepath.Join(dir, "chronos"), "../cmd/chronos")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	wantGoVersion(t, "the binary `make image` wraps", filepath.Join(dir, "chronos"))
	roots, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	if err != nil {
		roots = nil // an image without roots still serves; only https:// wakes need them
	}
	if err := os.WriteFile(filepath.Join(dir, "ca-certificates.crt"), roots, 0o644); err != nil {
		t.Fatal(err)
	}
	image := "localhost/chronos-test:" + random()
	if out, err := run("build", "--format", "docker", "-f", "Dockerfile.local", "-t", image, dir); err != nil {
		t.Fatalf("podman build: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = exec.Command(podman, "rmi", "-f", image).CombinedOutput() })
	cfg, err := run("image", "inspect", image, "--format", "{{.Config.User}}|{{.Config.Healthcheck.Test}}|{{.Config.Entrypoint}}")
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, cfg)
	}
	if want := "65532:65532|[CMD /chronos healthcheck --url http://127.0.0.1:8080/healthz]|[/chronos]"; cfg != want {
		t.Errorf("image config %q, want %q", cfg, want)
	}

	// Run it. crun refuses hybrid cgroups and the sandbox may not let it raise
	// rlimits; runc with limits at or below the current ones works where crun does not.
	var runArgs []string
	if _, err := exec.LookPath("runc"); err == nil {
		runArgs = append(runArgs, "--runtime", "runc")
	}
	port := freePort(t)
	name := "chronos-test-" + random()
	runArgs = append(runArgs, "run", "-d", "--name", name, "-p", "127.0.0.1:"+port+":8080",
		"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024", image, "serve", "--dev")
	out, err := run(runArgs...)
	if err != nil {
		if strings.Contains(out, "OCI") || strings.Contains(out, "cgroup") || strings.Contains(out, "netavark") {
			t.Skipf("the image builds, but podman cannot start a container here: %v\n%s", err, out)
		}
		t.Fatalf("podman run: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = exec.Command(podman, "rm", "-f", name).CombinedOutput() })

	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get("http://127.0.0.1:" + port + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			logs, _ := run("logs", name)
			t.Fatalf("the container never answered /healthz: %v\n%s", err, logs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if out, err := run("healthcheck", "run", name); err != nil {
		t.Errorf("podman healthcheck run: %v\n%s", err, out)
	}
	// The non-root user created the store on /data; token list reads it in place.
	if out, err := run("exec", name, "/chronos", "token", "list"); err != nil || !strings.Contains(out, "dev") {
		t.Errorf("token list in the container: %v\n%s", err, out)
	}
}

// The image ../Dockerfile builds from source compiles chronos with go.mod's toolchain,
// not the golang image's own: the Go version recorded in the binary it ships (what
// `go version -m` prints) is go.mod's toolchain line. It needs the registry (the golang
// image) and the module proxy; without them it skips, saying why.
func TestSourceImageUsesTheModuleToolchain(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: building an image from source takes minutes")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute)
	defer cancel()
	podman, run := podmanOrSkip(t, ctx)
	base := regexp.MustCompile(`(?m)^FROM\s+(golang:\S+)`).FindStringSubmatch(readFile(t, "../Dockerfile"))
	if base == nil {
		t.Fatal("../Dockerfile has no golang build stage")
	}
	if out, err := run("pull", "docker.io/library/"+base[1]); err != nil {
		t.Skipf("the build stage's image cannot be pulled here (%s): %v\n%s", base[1], err, out)
	}
	image := "localhost/chronos-source-test:" + random()
	if out, err := run("build", "--format", "docker", "-f", "../Dockerfile", "-t", image, ".."); err != nil {
		t.Fatalf("podman build of ../Dockerfile: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = exec.Command(podman, "rmi", "-f", image).CombinedOutput() })
	name := "chronos-source-test-" + random()
	if out, err := run("create", "--name", name, image); err != nil {
		t.Fatalf("podman create: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = exec.Command(podman, "rm", "-f", name).CombinedOutput() })
	bin := filepath.Join(t.TempDir(), "chronos")
	if out, err := run("cp", name+":/chronos", bin); err != nil {
		t.Fatalf("podman cp: %v\n%s", err, out)
	}
	wantGoVersion(t, "the image's /chronos", bin)
}

// podmanOrSkip is podman and a runner of its commands under ctx, or skips t when podman
// is missing or cannot run here.
func podmanOrSkip(t *testing.T, ctx context.Context) (string, func(args ...string) (string, error)) {
	t.Helper()
	podman, err := exec.LookPath("podman")
	if err != nil {
		t.Skip("podman is not installed (apt-get install podman runc); the image is not tested")
	}
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, podman, args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return strings.TrimSpace(out.String()), err
	}
	if out, err := run("info"); err != nil {
		t.Skipf("podman cannot run here: podman info: %v\n%s", err, out)
	}
	return podman, run
}

// wantGoVersion fails t unless the Go binary at path was built by go.mod's toolchain.
// It reads what `go version -m` prints: the build information the linker records.
func wantGoVersion(t *testing.T, what, path string) {
	t.Helper()
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: reading its build information: %v", what, err)
	}
	if want := moduleToolchain(t); info.GoVersion != want {
		t.Errorf("%s was built by %s, want go.mod's toolchain %s", what, info.GoVersion, want)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func random() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}

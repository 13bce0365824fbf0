package deploy

import (
	"bufio"
	"fmt"
	"go/version"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The Dockerfile's build stage compiles with the toolchain go.mod names, as `make`
// does: the golang image sets GOTOOLCHAIN=local, under which the go command ignores
// go.mod's toolchain line and builds with the image's own, older Go (and its fixed
// vulnerabilities unfixed). Read from the files, so it runs where no container engine
// does; TestSourceImageUsesTheModuleToolchain checks a built image where one does.
func TestDockerfileBuildsWithTheModuleToolchain(t *testing.T) {
	want := moduleToolchain(t)
	got, err := buildStageToolchain("../Dockerfile", want)
	if err != nil {
		t.Fatalf("../Dockerfile: %v", err)
	}
	if got != want {
		t.Errorf("../Dockerfile's build stage compiles with %s, go.mod names %s: set ENV GOTOOLCHAIN=%s before the first RUN go", got, want, want)
	}
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^export GOTOOLCHAIN = (\S+)$`).FindSubmatch(mk); m == nil || string(m[1]) != want {
		t.Errorf("the Makefile does not export GOTOOLCHAIN = %s (go.mod's toolchain)", want)
	}
}

// The rules the check applies, on the Dockerfiles a change could make.
func TestBuildStageToolchainRules(t *testing.T) {
	const toolchain = "go1.27.3"
	cases := []struct {
		name, dockerfile, want string
	}{
		{"the image's own Go", "FROM golang:1.26 AS build\nRUN go build ./...\n", "go1.26"},
		{"pinned", "FROM golang:1.26 AS build\nENV GOTOOLCHAIN=go1.27.3\nRUN go mod download\n", "go1.27.3"},
		{"pinned in a list", "FROM golang:1.26 AS build\nENV CGO_ENABLED=0 GOTOOLCHAIN=go1.27.3\nRUN go build\n", "go1.27.3"},
		{"an older pin", "FROM golang:1.26 AS build\nENV GOTOOLCHAIN=go1.27.1\nRUN go build\n", "go1.27.1"},
		{"auto: go.mod's when newer", "FROM golang:1.26 AS build\nENV GOTOOLCHAIN=auto\nRUN go build\n", "go1.27.3"},
		{"set after the first go command", "FROM golang:1.26 AS build\nRUN go mod download\nENV GOTOOLCHAIN=go1.27.3\nRUN go build\n", "go1.26"},
		{"an exact image", "FROM golang:1.27.3-bookworm AS build\nRUN go build\n", "go1.27.3"},
		{"set per command", "FROM golang:1.26 AS build\nRUN GOTOOLCHAIN=go1.27.3 go build\n", "go1.27.3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := t.TempDir() + "/Dockerfile"
			if err := os.WriteFile(path, []byte(c.dockerfile), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := buildStageToolchain(path, toolchain)
			if err != nil || got != c.want {
				t.Errorf("toolchain = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// moduleToolchain is go.mod's toolchain line (its go line when it has none).
func moduleToolchain(t *testing.T) string {
	t.Helper()
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^toolchain (go\S+)$`).FindSubmatch(mod); m != nil {
		return string(m[1])
	}
	if m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod); m != nil {
		return "go" + string(m[1])
	}
	t.Fatal("go.mod has neither a toolchain nor a go line")
	return ""
}

// buildStageToolchain is the Go toolchain the first go command of the Dockerfile's
// golang stage runs with, given the toolchain go.mod names: the image's own Go (its
// tag's version, "go1.26" for a tag that names no patch release) unless GOTOOLCHAIN
// says otherwise, as the go command reads that variable.
func buildStageToolchain(path, modToolchain string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	from := regexp.MustCompile(`(?i)^FROM\s+(?:\S*/)?golang:(\d+\.\d+(?:\.\d+)?)\S*`)
	env := regexp.MustCompile(`(?:^|\s)GOTOOLCHAIN=(\S+)`)
	base, setting := "", "local"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if m := from.FindStringSubmatch(line); m != nil {
			base, setting = "go"+m[1], "local"
			continue
		}
		if base == "" {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		switch strings.ToUpper(word) {
		case "ENV", "ARG":
			if m := env.FindStringSubmatch(rest); m != nil {
				setting = strings.Trim(m[1], `"'`)
			}
		case "RUN":
			if !regexp.MustCompile(`(?:^|[\s;&|])go\s`).MatchString(rest) {
				continue
			}
			if m := env.FindStringSubmatch(rest); m != nil {
				setting = strings.Trim(m[1], `"'`)
			}
			return effectiveToolchain(base, setting, modToolchain), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no golang stage running a go command")
}

// effectiveToolchain applies GOTOOLCHAIN's forms (go help toolchain): local, auto
// (local+auto), path, a version, each optionally "+auto" or "+path", which switch to
// go.mod's toolchain when it is newer than the default.
func effectiveToolchain(base, setting, modToolchain string) string {
	def, switching, _ := strings.Cut(setting, "+")
	switch def {
	case "auto", "path":
		def, switching = "local", def
	}
	if def == "local" {
		def = base
	}
	if (switching == "auto" || switching == "path") && version.Compare(modToolchain, def) > 0 {
		return modToolchain
	}
	return def
}

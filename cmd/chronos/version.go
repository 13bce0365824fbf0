package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/chronoshq/chronos/internal/flagenv"
)

// version is set at link time: -ldflags "-X main.version=v1.2.3". It wins over the
// build information, for packagers who build from a tarball without VCS data.
var version = ""

// Version is the link-time version, else the module version the go command stamped
// (a tag, or a pseudo-version of the commit), else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// buildInfo is what `chronos version` reports: enough to find the exact source of a
// binary in a bug report.
type buildInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"` // the VCS commit; "" when built outside a checkout (go install m@v)
	Time      string `json:"revision_time,omitempty"`
	Modified  bool   `json:"modified"` // the checkout had uncommitted changes
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
}

func readBuildInfo() buildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return buildInfoOf(Version(), bi)
}

// buildInfoOf reads what the go command stamped into bi (nil: nothing, as in a binary
// built without module support).
func buildInfoOf(version string, bi *debug.BuildInfo) buildInfo {
	info := buildInfo{Version: version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		return info
	}
	info.GoVersion = bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// String is one line: chronos v1.2.3 (revision 8f71f6a…, modified) go1.26.8 linux/amd64.
func (b buildInfo) String() string {
	s := "chronos " + b.Version
	if b.Revision != "" {
		s += " (revision " + b.Revision
		if b.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + " " + b.GoVersion + " " + b.Platform
}

func versionCommand(args []string, stdout, stderr io.Writer) error {
	fs := flagenv.NewNoEnv("version", stderr)
	asJSON := fs.Bool("json", false, "print the build information as JSON")
	if err := flagenv.ParseCommandLine(fs, args); err != nil {
		return err
	}
	info := readBuildInfo()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(info)
	}
	_, err := fmt.Fprintln(stdout, info)
	return err
}

package main

import "runtime/debug"

// version is set at link time: -ldflags "-X main.version=v1.2.3".
var version = ""

// Version is the link-time version, else the module version, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

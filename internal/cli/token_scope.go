package cli

import (
	"fmt"

	"github.com/chronoshq/chronos/domain"
)

// adminFlag is --admin of `token create`: absent (an owner token), bare (--admin: every
// admin route) or --admin read / --admin=read (the read-only admin routes).
type adminFlag string

func (f *adminFlag) String() string { return string(*f) }

// IsBoolFlag lets --admin stand alone; joinAdminValue turns "--admin read" into
// "--admin=read" before parsing, since the flag package gives bool-like flags no value
// of their own.
func (f *adminFlag) IsBoolFlag() bool { return true }

func (f *adminFlag) Set(v string) error {
	switch v {
	case "true", "full", "admin":
		*f = "admin"
	case "read", "read-only", "admin:read":
		*f = "read"
	case "false":
		*f = ""
	default:
		return fmt.Errorf("must be given alone (every admin route) or as --admin read (read-only), not %q", v)
	}
	return nil
}

func (f adminFlag) scope() domain.Scope {
	switch f {
	case "admin":
		return domain.ScopeAdmin
	case "read":
		return domain.ScopeAdminRead
	}
	return domain.ScopeOwner
}

// joinAdminValue rewrites "--admin read" (and -admin read) as "--admin=read".
func joinAdminValue(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (a == "--admin" || a == "-admin") && i+1 < len(args) {
			switch args[i+1] {
			case "read", "read-only", "admin:read", "full":
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

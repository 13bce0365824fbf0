package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
)

// readWakeSecretFile reads --wake-secret-file: one secret a line, each of which signs
// every wake, as repeated --wake-secret do (rotation); blank lines and lines starting with # are
// skipped, blanks around a secret dropped. A file that group or others may read gets a
// warning, not a refusal: some deployments mount secrets that way on purpose.
func readWakeSecretFile(path string) (secrets []string, warning string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("--wake-secret-file: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().Perm()&0o077 != 0 {
		warning = fmt.Sprintf("--wake-secret-file %s may be read by group or others (mode %s); chmod 600 it", path, st.Mode().Perm())
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			secrets = append(secrets, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("--wake-secret-file %s: %w", path, err)
	}
	if len(secrets) == 0 {
		return nil, "", errors.New("--wake-secret-file " + path + " holds no secret (one a line; # starts a comment)")
	}
	return secrets, warning, nil
}

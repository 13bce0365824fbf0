package mysql

import "github.com/chronoshq/chronos/ports"

var (
	_ ports.Exporter = (*Store)(nil)
	_ ports.Importer = (*Store)(nil)
)

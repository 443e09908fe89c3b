// Package testfonts holds font files for tests (README.md): a kit's fonts
// uploaded by integration tests, parsed by unit tests.
package testfonts

import _ "embed"

var (
	// Dynalight is an OpenType (CFF) script face: family "Dynalight", weight 400.
	//go:embed Dynalight-Regular.otf
	Dynalight []byte
	// DejaVuSerif is WOFF2: family "DejaVu Serif", weight 400.
	//go:embed DejaVuSerif.woff2
	DejaVuSerif []byte
)

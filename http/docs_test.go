package httpapi_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	httpapi "github.com/platform/backend/http"
)

// TestRedocBundleIsTheVendoredOne: the renderer every service serves at
// /docs/redoc.standalone.js is the file scripts/apidocs.sh fetched from the
// npm registry (its sha256 as recorded then), with its license: a bundle
// edited by hand, or missing, fails here.
func TestRedocBundleIsTheVendoredOne(t *testing.T) {
	if httpapi.RedocSHA256 != httpapi.RedocPinned {
		t.Fatalf("embedded bundle %s, vendored %s: run scripts/apidocs.sh fetch", httpapi.RedocSHA256, httpapi.RedocPinned)
	}
	version, err := os.ReadFile("apidocs/VERSION")
	if err != nil || !strings.HasPrefix(string(version), "redoc@") {
		t.Fatalf("apidocs/VERSION: %q %v", version, err)
	}
	license, err := os.ReadFile("apidocs/LICENSE.txt")
	if err != nil || !bytes.Contains(license, []byte("MIT License")) {
		t.Fatalf("apidocs/LICENSE.txt: %v", err)
	}
	script, err := os.ReadFile("../scripts/apidocs.sh")
	pinned := strings.TrimPrefix(strings.SplitN(string(version), "\n", 2)[0], "redoc@")
	if err != nil || !bytes.Contains(script, []byte("VERSION="+pinned+"\n")) {
		t.Fatalf("scripts/apidocs.sh pins another version than apidocs/VERSION (%s)", version)
	}
}

#!/usr/bin/env bash
# The API reference page's renderer: Redoc's standalone bundle, fetched from the
# npm registry at a pinned version (npm checks the tarball against the
# registry's integrity hash) and vendored into http/apidocs/, which every
# service embeds and serves at GET /docs/redoc.standalone.js under its own
# strict policy (no CDN, nothing fetched at run time).
#
#   scripts/apidocs.sh fetch   fetch the pinned version and write the vendored files
#   scripts/apidocs.sh check   fetch it and fail unless the vendored files are those bytes
#
# The vendored files are committed: go build and a fresh CI machine need no npm,
# and the kernel's test (http/docs_test.go) holds the embedded bundle to the
# sha256 recorded here (REDOC.sha256), so a hand-edited bundle fails the suite.
# To update: change VERSION, run fetch, commit.
#
# One patch, byte-exact and checked: Redoc 2 always shows its sidebar footer
# with a logo image from its CDN (no option turns it off); the policy would
# block the fetch, and the browser would report the violation. The URL becomes
# "data:," (an empty image: the footer's onError hides it), so the page asks
# nothing from anywhere but the service.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PACKAGE=redoc
VERSION=2.5.4
OUT="$ROOT/http/apidocs"

log() { echo "apidocs: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v npm >/dev/null 2>&1 || die "npm is needed (Debian: apt-get install npm)"

fetch_into() {
	local dir="$1" tgz
	(cd "$dir" && npm pack --silent "$PACKAGE@$VERSION" >/dev/null)
	tgz="$(ls "$dir"/*.tgz)"
	tar -xzf "$tgz" -C "$dir" package/bundles/redoc.standalone.js package/bundles/redoc.standalone.js.LICENSE.txt package/LICENSE
	mkdir -p "$dir/out"
	local logo='https://cdn.redoc.ly/redoc/logo-mini.svg'
	[[ "$(grep -o "$logo" "$dir/package/bundles/redoc.standalone.js" | wc -l)" -eq 1 ]] || die "the bundle does not hold the CDN logo URL exactly once: review the patch"
	sed "s|$logo|data:,|" "$dir/package/bundles/redoc.standalone.js" >"$dir/out/redoc.standalone.js"
	! grep -q 'cdn\.redoc\.ly' "$dir/out/redoc.standalone.js" || die "the patched bundle still names cdn.redoc.ly"
	{
		echo "Redoc $VERSION (npm package $PACKAGE@$VERSION, bundles/redoc.standalone.js; its CDN logo URL replaced by data:, see scripts/apidocs.sh)"
		echo
		cat "$dir/package/LICENSE"
		echo
		echo "Third-party notices of the bundle (bundles/redoc.standalone.js.LICENSE.txt):"
		echo
		cat "$dir/package/bundles/redoc.standalone.js.LICENSE.txt"
	} >"$dir/out/LICENSE.txt"
	(cd "$dir/out" && sha256sum redoc.standalone.js >REDOC.sha256 && echo "$PACKAGE@$VERSION" >VERSION &&
		echo "npm bundle sha256 $(sha256sum <"$dir/package/bundles/redoc.standalone.js" | cut -d' ' -f1); logo URL patched to data:," >>VERSION)
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
case "${1:-fetch}" in
fetch)
	fetch_into "$tmp"
	cp "$tmp/out/"* "$OUT/"
	log "vendored $PACKAGE@$VERSION into $OUT ($(cut -d' ' -f1 "$OUT/REDOC.sha256"))"
	;;
check)
	fetch_into "$tmp"
	for f in redoc.standalone.js LICENSE.txt REDOC.sha256 VERSION; do
		cmp -s "$tmp/out/$f" "$OUT/$f" || die "$OUT/$f differs from $PACKAGE@$VERSION as the registry serves it: run scripts/apidocs.sh fetch"
	done
	log "$OUT holds $PACKAGE@$VERSION as the registry serves it"
	;;
*) die "usage: $0 fetch|check" ;;
esac

#!/usr/bin/env bash
# Makes sure a headless browser is there for the end-to-end tests that look
# at the status page as a person would (e2e/status_page_test.go): Debian's
# `chromium`, installed with apt-get when missing (as root, like Java for
# scripts/kafka.sh). CHROMIUM names another binary to use instead.
#
#   scripts/chromium.sh        install when missing, print the binary's path
set -euo pipefail

log() { echo "chromium: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

find_browser() {
	if [[ -n "${CHROMIUM:-}" ]]; then
		command -v "$CHROMIUM" 2>/dev/null || return 1
		return 0
	fi
	local b
	for b in chromium chromium-browser; do
		if command -v "$b" >/dev/null 2>&1; then
			command -v "$b"
			return 0
		fi
	done
	return 1
}

if path="$(find_browser)"; then
	echo "$path"
	exit 0
fi
[[ -z "${CHROMIUM:-}" ]] || die "CHROMIUM=$CHROMIUM is not an executable"
log "installing chromium from Debian"
[[ "$(id -u)" -eq 0 ]] || die "chromium missing and not root: install Debian's chromium package (apt-get install chromium)"
DEBIAN_FRONTEND=noninteractive apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core
path="$(find_browser)" || die "apt-get installed chromium but no chromium binary is on PATH"
"$path" --version >&2 || die "$path does not run"
echo "$path"

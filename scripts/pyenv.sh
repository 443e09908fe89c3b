#!/usr/bin/env bash
# A Python tool set of the tests, pinned in scripts/NAME/requirements.txt, in a
# virtual environment under .stack/NAME/venv of this repository:
#
#   scripts/pyenv.sh setup NAME   install (idempotent: nothing is fetched when the
#                                 venv already holds the pinned requirements);
#                                 prints the venv's directory
#   scripts/pyenv.sh path NAME    print it (exit 1 when not set up)
#
# Used for schemathesis (NAME fuzz, scripts/fuzz.sh) and the official OpenAI and
# Anthropic SDKs of the gateway's compatibility test (NAME sdk,
# e2e/gateway_sdk_test.go).
#
# Env: PYTHON (default python3; Debian's python3 and python3-venv are installed
# with apt-get when no python can make a venv), PIP_* as pip reads them (a local
# index or --find-links for an offline machine).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

log() { echo "pyenv: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[[ $# -eq 2 ]] || die "usage: $0 setup|path NAME"
NAME="$2"
[[ "$NAME" =~ ^[a-z][a-z0-9_-]*$ ]] || die "bad name $NAME"
REQ="$ROOT/scripts/$NAME/requirements.txt"
[[ -f "$REQ" ]] || die "no $REQ"
DIR="$ROOT/.stack/$NAME"
VENV="$DIR/venv"
STAMP="$VENV/.requirements"

installed() {
	[[ -x "$VENV/bin/python" && -f "$STAMP" ]] && cmp -s "$REQ" "$STAMP"
}

# can_venv PY: PY makes a venv with pip in it (Debian splits venv and ensurepip
# into python3-venv).
can_venv() {
	local py="$1" probe
	command -v "$py" >/dev/null 2>&1 || return 1
	probe="$(mktemp -d)"
	if "$py" -m venv "$probe/v" >/dev/null 2>&1 && [[ -x "$probe/v/bin/pip" ]]; then
		rm -rf "$probe"
		return 0
	fi
	rm -rf "$probe"
	return 1
}

setup() {
	if installed; then
		echo "$VENV"
		return
	fi
	local py="${PYTHON:-python3}"
	if ! can_venv "$py"; then
		if can_venv /usr/bin/python3; then
			py=/usr/bin/python3
		else
			log "installing python3 and python3-venv from Debian"
			[[ "$(id -u)" -eq 0 ]] || die "no python that can make a venv and not root: install python3-venv"
			DEBIAN_FRONTEND=noninteractive apt-get update -q
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 python3-venv python3-pip
			py=/usr/bin/python3
			can_venv "$py" || die "python3 -m venv still fails after installing python3-venv"
		fi
	fi
	log "installing $(grep -v '^#' "$REQ" | xargs) into $VENV ($("$py" --version 2>&1))"
	rm -rf "$VENV"
	mkdir -p "$DIR"
	"$py" -m venv "$VENV"
	"$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQ"
	cp "$REQ" "$STAMP"
	echo "$VENV"
}

case "$1" in
setup) setup ;;
path)
	installed || die "not set up: run scripts/pyenv.sh setup $NAME"
	echo "$VENV"
	;;
*) die "usage: $0 setup|path NAME" ;;
esac

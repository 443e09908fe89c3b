#!/usr/bin/env bash
# The fuzzing gate's tools: schemathesis (pinned in scripts/fuzz/requirements.txt)
# in a virtual environment under .stack/fuzz/venv of this repository
# (scripts/pyenv.sh installs it).
#
#   scripts/fuzz.sh setup   install (idempotent: nothing is fetched when the venv
#                           already holds the pinned requirements); prints the
#                           schemathesis path
#   scripts/fuzz.sh path    print the schemathesis path (exit 1 when not set up)
#
# The run itself is the Go test e2e.TestSchemathesis (make fuzz, and part of
# make test): it starts platformd on loopback with a fresh database and runs
# schemathesis against every service's /api/openapi.json.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

case "${1:-setup}" in
setup)
	venv="$("$ROOT/scripts/pyenv.sh" setup fuzz)"
	[[ -x "$venv/bin/schemathesis" ]] || { echo "fuzz: no schemathesis in $venv" >&2; exit 1; }
	echo "$venv/bin/schemathesis"
	;;
path) echo "$("$ROOT/scripts/pyenv.sh" path fuzz)/bin/schemathesis" ;;
*)
	echo "usage: $0 [setup|path]" >&2
	exit 1
	;;
esac

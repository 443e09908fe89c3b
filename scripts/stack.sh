#!/usr/bin/env bash
# Brings up the infrastructure the platform and its tests need, and writes
# .stack/env for the shell:
#
#   scripts/stack.sh           start (or reuse) Kafka and PostgreSQL, write and print .stack/env
#   scripts/stack.sh stop      stop both (data under .stack/ is kept)
#   scripts/stack.sh status    exit 0 when both answer
#   . .stack/env               then KAFKA_BROKERS and DATABASE_URL are set
#
# KAFKA_BROKERS / DATABASE_URL already set in the environment are used as they
# are (nothing is started for them), unless they are this stack's own values. Otherwise scripts/kafka.sh and
# scripts/postgres.sh run in parallel (ports: KAFKA_PORT, PG_PORT; the
# controller port follows KAFKA_PORT). STACK_DIR (default .stack) holds the
# stack's data and env file, so a second stack (the fault tests') can run
# beside the first on other ports.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STACK="${STACK_DIR:-$ROOT/.stack}"
export STACK_DIR="$STACK"
KAFKA_PORT="${KAFKA_PORT:-19092}"
PG_PORT="${PG_PORT:-15432}"
export KAFKA_PORT PG_PORT

log() { echo "stack: $*" >&2; }
# shquote VALUE: VALUE as one single-quoted POSIX sh word.
shquote() {
	local q="'" e="'\\''"
	printf "'%s'" "${1//$q/$e}"
}

start() {
	mkdir -p "$STACK"
	local t0=$SECONDS kpid="" ppid="" failed=0

	# Values equal to our own (e.g. a shell that sourced .stack/env) still
	# mean "this stack": make sure it runs.
	local own_brokers="127.0.0.1:$KAFKA_PORT"
	local own_dburl="postgres://postgres@127.0.0.1:$PG_PORT/platform?sslmode=disable"
	if [[ "${KAFKA_BROKERS:-}" == "$own_brokers" ]]; then unset KAFKA_BROKERS; fi
	if [[ "${DATABASE_URL:-}" == "$own_dburl" ]]; then unset DATABASE_URL; fi

	if [[ -z "${KAFKA_BROKERS:-}" ]]; then
		"$ROOT/scripts/kafka.sh" start &
		kpid=$!
	else
		log "using KAFKA_BROKERS=$KAFKA_BROKERS from the environment"
	fi
	if [[ -z "${DATABASE_URL:-}" ]]; then
		"$ROOT/scripts/postgres.sh" start &
		ppid=$!
	else
		log "using DATABASE_URL from the environment"
	fi

	if [[ -n "$kpid" ]] && ! wait "$kpid"; then
		log "Kafka did not come up (see .stack/kafka/server.log)"
		failed=1
	fi
	if [[ -n "$ppid" ]] && ! wait "$ppid"; then
		log "PostgreSQL did not come up (see .stack/pg/postgres.log)"
		failed=1
	fi
	((failed == 0)) || exit 1

	local brokers="${KAFKA_BROKERS:-$own_brokers}"
	local dburl="${DATABASE_URL:-$own_dburl}"
	# POSIX sh syntax (make runs /bin/sh), values single-quoted.
	{
		echo "export KAFKA_BROKERS=$(shquote "$brokers")"
		echo "export DATABASE_URL=$(shquote "$dburl")"
	} >"$STACK/env.tmp.$$"
	mv "$STACK/env.tmp.$$" "$STACK/env"
	log "up in $((SECONDS - t0))s; environment in .stack/env:"
	cat "$STACK/env"
}

case "${1:-start}" in
start) start ;;
stop)
	rc=0
	"$ROOT/scripts/kafka.sh" stop &
	k=$!
	"$ROOT/scripts/postgres.sh" stop || rc=1
	wait "$k" || rc=1
	exit $rc
	;;
status)
	rc=0
	"$ROOT/scripts/kafka.sh" status || rc=1
	"$ROOT/scripts/postgres.sh" status || rc=1
	exit $rc
	;;
*)
	echo "usage: $0 [start|stop|status]" >&2
	exit 2
	;;
esac

#!/usr/bin/env bash
# Alternates two builds of the benchmarks, pair after pair, and prints each
# run's metrics line: the way every before/after figure in bench/README.md is
# taken (one run's difference is within the machine's noise; pairs are not).
#
#   scripts/bench-pairs.sh <base-rev> <new-rev> <benchmark regexp> [pairs] [extra flags...]
#
# Each revision is built once (git worktree under .stack/bench-pairs) into
# .stack/bench-pairs/<rev>.test; BENCH_DIAG and the stack's environment are
# passed through; BENCH_PAIRS_ALSO, a regexp, prints the log lines it matches
# too (the CPU a command, say). Example, issue 22's command bar:
#
#   scripts/bench-pairs.sh main~3 main 'IncidentUpdatesHTTP$' 3
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { sed -n '2,12p' "$0"; exit 2; }
base=$1 new=$2 pattern=$3 pairs=${4:-3}
shift $(( $# >= 4 ? 4 : 3 ))
. .stack/env
dir=.stack/bench-pairs
mkdir -p "$dir"

build() { # rev -> path of its test binary
	local sha out
	sha=$(git rev-parse --short=12 "$1")
	out="$PWD/$dir/$sha.test"
	if [ ! -x "$out" ]; then
		if [ "$(git rev-parse HEAD)" = "$(git rev-parse "$1")" ] && git diff --quiet HEAD -- .; then
			go test -c -o "$out" ./bench/ >&2
		else
			rm -rf "$dir/src-$sha"
			git worktree add -q --detach "$dir/src-$sha" "$sha" >&2
			(cd "$dir/src-$sha" && go test -c -o "$out" ./bench/) >&2
			git worktree remove --force "$dir/src-$sha" >&2
		fi
	fi
	echo "$out"
}

bins=("$(build "$base")" "$(build "$new")")
names=("base $base" "new $new")
for ((p = 1; p <= pairs; p++)); do
	for i in 0 1; do
		# the bench directory: the benchmarks read fixtures relative to it
		line=$(cd bench && PLATFORM_REQUIRE_INFRA=1 "${bins[$i]}" -test.run '^$' -test.bench "$pattern" \
			-test.benchtime=1x -test.timeout 30m "$@" 2>&1 | grep -E "^Benchmark${BENCH_PAIRS_ALSO:+|$BENCH_PAIRS_ALSO}" || true)
		printf 'pair %d, %s (load %s):\n%s\n' "$p" "${names[$i]}" "$(cut -d' ' -f1-3 /proc/loadavg)" "${line:-  (no metrics line: the run failed)}"
	done
done

# Everything that needs Kafka or PostgreSQL runs against the project's own
# stack (scripts/stack.sh): a real single-node Kafka (KRaft) on 127.0.0.1:19092
# and PostgreSQL 15 on 127.0.0.1:15432, both under .stack/. KAFKA_BROKERS /
# DATABASE_URL already set in the environment are used instead.
#
# Recipes that use the stack source .stack/env in the same shell line.

.PHONY: stack chromium ffmpeg build test fuzz fuzz-tools bench run stop

stack:
	scripts/stack.sh

# Headless Chromium for the e2e test that opens the status page as a person
# would (Debian's chromium, apt-get installed when missing).
chromium:
	scripts/chromium.sh

# ffmpeg and ffprobe for the studio's renderer and its tests (Debian's
# ffmpeg, apt-get installed when missing; FFMPEG/FFPROBE override).
ffmpeg:
	scripts/ffmpeg.sh >/dev/null

build:
	go build -o bin/ ./cmd/...

# PLATFORM_FUZZ=1: the fuzzing gate (e2e.TestSchemathesis, a few minutes) is
# part of the suite; fuzz-tools installs schemathesis first.
test: stack chromium ffmpeg fuzz-tools sdk-tools
	. .stack/env && PLATFORM_FUZZ=1 PLATFORM_REQUIRE_INFRA=1 go test -count=1 -p 2 -timeout 45m ./...

# Only the fuzzing gate (e2e.TestSchemathesis, also part of make test):
# schemathesis against every service's OpenAPI document of a real platformd
# (FUZZ_MAX_EXAMPLES, FUZZ_SEED, FUZZ_SERVICES, FUZZ_REPORT_DIR, FUZZ_SHOW).
fuzz: stack fuzz-tools
	. .stack/env && PLATFORM_FUZZ=1 PLATFORM_REQUIRE_INFRA=1 go test -count=1 -v -run '^TestSchemathesis$$' -timeout 25m ./e2e/

fuzz-tools:
	scripts/fuzz.sh setup >/dev/null

# The official openai and anthropic Python SDKs (scripts/sdk/requirements.txt) of
# the gateway's compatibility test (e2e/gateway_sdk_test.go).
sdk-tools:
	scripts/pyenv.sh setup sdk >/dev/null

bench: stack ffmpeg
	. .stack/env && PLATFORM_REQUIRE_INFRA=1 go test -run '^$$' -bench . -benchmem -benchtime=1x -timeout 20m ./bench/...

run: stack ffmpeg build
	. .stack/env && scripts/run.sh

stop:
	scripts/stack.sh stop

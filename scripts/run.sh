#!/usr/bin/env bash
# Runs platformd with every service against the stack in the environment
# (KAFKA_BROKERS, DATABASE_URL), after making the demo organizations once
# (scripts/demo.sh: an operator key of the platform administration
# organization and a tenant organization with its own key, kept in
# .stack/demo.json). Prints each service's base URL and both keys.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/demo.sh
# The public status page shows the tenant's components and incidents.
export STATUS_PUBLIC_ORGANIZATION_ID="${STATUS_PUBLIC_ORGANIZATION_ID:-$TENANT_ORG}"
# The gateway's SANDBOX: AI providers without a key in the environment
# (GATEWAY_AI_PROVIDER_<N>_KEY) are served by the fake providers in-process,
# marked "sandbox": true in every answer and "sandbox:<provider>" in usage.
export GATEWAY_SANDBOX="${GATEWAY_SANDBOX:-true}"
# Publishing talks to local fakes of the six networks unless clients are
# configured (PUBLISHING_NETWORK_<N>_CLIENT_ID ...).
export PUBLISHING_SANDBOX="${PUBLISHING_SANDBOX:-true}"
# Secrets at rest (credentials, network tokens) are sealed with the
# sandbox's fixed key unless PLATFORM_KEYRING is set: not for real secrets.
export PLATFORM_KEYRING_SANDBOX="${PLATFORM_KEYRING_SANDBOX:-true}"

echo "platformd: services"
bin/platformctl services
cat <<MSG
try, as the tenant:
  curl -s -H "Authorization: Bearer $TENANT_KEY" -H 'Content-Type: application/json' \\
    -d '{"title":"API errors","message":"Investigating","severity":"major"}' http://127.0.0.1:8082/api/incidents
  curl -s http://127.0.0.1:8082/api/status                      # the public status page (the tenant's)
  curl -s -H "Authorization: Bearer $TENANT_KEY" -H 'Content-Type: application/json' \
    -d '{"prompt":"Say hello"}' http://127.0.0.1:8083/api/ai/completions   # AI through the gateway (SANDBOX fakes: no real key)
  curl -s -H "Authorization: Bearer $TENANT_KEY" http://127.0.0.1:8083/api/usage/events   # every metered call
  PLATFORM_API_KEY=$TENANT_KEY bin/platformctl history          # audit trail of the tenant's organization
  bin/platformctl help
as the operator:
  PLATFORM_API_KEY=$OPERATOR_KEY bin/platformctl replay status  # rebuild a read model
MSG
exec bin/platformd

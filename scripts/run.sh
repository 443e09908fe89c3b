#!/usr/bin/env bash
# Runs platformd with every service against the stack in the environment
# (KAFKA_BROKERS, DATABASE_URL), after creating a demo organization with an
# API key once (kept in .stack/demo.json). Prints each service's base URL.
set -euo pipefail
cd "$(dirname "$0")/.."

demo=.stack/demo.json
if [ ! -s "$demo" ]; then
  bin/platformctl bootstrap --org-name "Demo Organization" --slug demo --email owner@demo.example > "$demo.tmp"
  mv "$demo.tmp" "$demo"
fi
org=$(sed -n 's/.*"organization_id":"\([^"]*\)".*/\1/p' "$demo")
key=$(sed -n 's/.*"api_key":"\([^"]*\)".*/\1/p' "$demo")
export STATUS_PUBLIC_ORGANIZATION_ID="${STATUS_PUBLIC_ORGANIZATION_ID:-$org}"

cat <<MSG
platformd: services
  identity  http://${PLATFORM_IDENTITY_ADDR:-127.0.0.1:8081}   (/validate, /api/api-keys)
  status    http://${PLATFORM_STATUS_ADDR:-127.0.0.1:8082}   (/api/status, /api/incidents, /api/maintenance, /poll ...)
  ops       http://${PLATFORM_OPS_ADDR:-127.0.0.1:8090}   (/api/history, /api/projections, /metrics)
demo organization: $org
demo API key:      $key
try:
  curl -s -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \\
    -d '{"title":"API errors","message":"Investigating","severity":"major"}' http://127.0.0.1:8082/api/incidents
  PLATFORM_API_KEY=$key bin/platformctl actions list
MSG
exec bin/platformd

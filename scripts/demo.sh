#!/usr/bin/env bash
# Makes the demo organizations of `make run` once, and prints their keys:
#   - the platform administration organization with an OPERATOR key: platform
#     scopes (replays, privacy maintenance, service tokens) besides a tenant's;
#   - a plain TENANT organization with its own key: what a customer sees.
# Both stay in $DEMO_FILE (default .stack/demo.json) as
# {"operator": <platformctl bootstrap output>, "tenant": <the same>}.
# A demo file of an older `make run` (the administration organization alone)
# is kept as the operator, and a tenant is added.
# Run from the repository root; run.sh sources it (then OPERATOR_KEY,
# TENANT_ORG, ... are set), tests execute it with PLATFORMCTL and DEMO_FILE.
set -euo pipefail

ctl=${PLATFORMCTL:-bin/platformctl}
demo=${DEMO_FILE:-.stack/demo.json}

# section NAME: one member object of the demo file (flat: no nested objects).
section() { sed -n "s/.*\"$1\":\({[^}]*}\).*/\1/p" "$demo"; }
# member JSON NAME: a string member of an object.
member() { printf '%s' "$1" | sed -n "s/.*\"$2\":\"\([^\"]*\)\".*/\1/p"; }
# save: after each organization made, so that a failure later never makes
# the next run bootstrap the administration organization a second time.
save() {
  printf '{"operator":%s,"tenant":%s}\n' "${operator:-null}" "${tenant:-null}" > "$demo.tmp"
  mv "$demo.tmp" "$demo"
}

operator="" tenant=""
if [ -s "$demo" ]; then
  if grep -q '"operator":' "$demo"; then
    operator=$(section operator)
    tenant=$(section tenant)
  else
    operator=$(tr -d '\n' < "$demo") # an older make run: the administration organization alone
  fi
fi
if [ -z "$operator" ]; then
  operator=$("$ctl" bootstrap --org-name "Platform Administration" --slug platform-admin --email operator@demo.example)
  save
fi
if [ -z "$tenant" ]; then
  tenant=$("$ctl" bootstrap --administration=false --org-name "Demo Tenant" --slug demo-tenant --email owner@demo-tenant.example)
  save
fi

# A kept key whose scopes are not what the platform gives now (it gained a
# service since the key was made) is replaced by another key of the same
# organization and user: the old one keeps working with what it had.
sorted_scopes() { tr -d '"[] ' | tr ',' '\n' | sort | tr '\n' ','; }
kept_scopes() { printf '%s' "$1" | sed -n 's/.*"scopes":\(\[[^]]*\]\).*/\1/p' | sorted_scopes; }
renewed=""
renew() { # renew VAR ADMINISTRATION LABEL
  local obj=${!1} kept want
  kept=$(kept_scopes "$obj")
  want=$("$ctl" scopes --administration="$2" | sorted_scopes)
  if [ -n "$kept" ] && [ "$kept" != "$want" ]; then
    printf -v "$1" '%s' "$("$ctl" key --org "$(member "$obj" organization_id)" --user "$(member "$obj" user_id)" \
      --administration="$2" --name demo)"
    renewed="$renewed $3"
    save
  fi
}
renew operator true operator
renew tenant false tenant
save # rewrites an older file in the current shape

OPERATOR_ORG=$(member "$operator" organization_id)
OPERATOR_KEY=$(member "$operator" api_key)
TENANT_ORG=$(member "$tenant" organization_id)
TENANT_KEY=$(member "$tenant" api_key)

cat <<MSG
operator organization: $OPERATOR_ORG   (platform administration)
operator key:          $OPERATOR_KEY
                       platform scopes: replays, privacy maintenance, service tokens; keep it out of tenants' hands
tenant organization:   $TENANT_ORG   (Demo Tenant: a customer's view)
tenant key:            $TENANT_KEY
                       tenant scopes only (every service's, for its own organization: platformctl bootstrap --help)
(both kept in $demo)
MSG
if [ -n "$renewed" ]; then
  echo "(made again:$renewed key: the platform has scopes the kept one lacked)"
fi

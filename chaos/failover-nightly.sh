#!/usr/bin/env bash
# The nightly failover run (issue 26, item 3): `npm run chaos -- --failover` with a fresh seed, on a
# Patroni-managed PostgreSQL leader + synchronous replica behind HAProxy (chaos/cluster.ts), the
# leader's node crashed mid-load. Not part of CI (.ci/run): it takes about 3 minutes on a 2-core machine
# on top of CI's own chaos run. Installs patroni, etcd and haproxy itself when missing (root, apt-get);
# needs Redis on 127.0.0.1:6379 (CHAOS_REDIS_URL) as the other chaos run does.
#
#   chaos/failover-nightly.sh                # or: npm run chaos:failover-nightly
#   CHAOS_SEED=7 chaos/failover-nightly.sh   # replay a night's seed
#
# Exit code: the run's (0 valid, 1 not). The verdict is the last line of its stdout; the run's
# directory (history, logs) is printed on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
CHAOS_SEED="${CHAOS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
echo "== failover chaos run, $(date -u +%Y-%m-%dT%H:%M:%SZ), seed ${CHAOS_SEED} (replay: npm run chaos -- --failover --seconds 60 --seed ${CHAOS_SEED})"
exec npm run chaos -- --failover --seconds 60 --seed "${CHAOS_SEED}"

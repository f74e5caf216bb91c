#!/usr/bin/env bash
# The project's test command: makes sure PostgreSQL, MariaDB and Redis answer on 127.0.0.1
# (starting or, as root on Debian/Ubuntu, installing them: see scripts/services.sh), then runs
# the whole Maven build with its tests. Extra arguments go to Maven, e.g.
#   ./scripts/test.sh -pl idempotency-spring-boot-autoconfigure -Dtest=SomeTest
# SKIP_SERVICES=1 skips the service check (services provided some other way).
#
#   ./scripts/test.sh --fast [maven arguments]
# is the fast lane: every module's unit tests (*Tests, surefire) and nothing else, so no service
# check and no *IntegrationTests (failsafe is skipped with -DskipITs). It needs no PostgreSQL,
# MariaDB, Redis or Kafka: unit tests use in-memory H2/HSQLDB and closed ports only.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [[ "${1:-}" == --fast ]]; then
	shift
	exec ./mvnw -B verify -DskipITs "$@"
fi

if [[ "${SKIP_SERVICES:-}" != 1 ]]; then
	bash scripts/services.sh
fi

exec ./mvnw -B verify "$@"

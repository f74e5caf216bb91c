#!/usr/bin/env bash
# The project's test command: makes sure PostgreSQL, MariaDB, Redis and RabbitMQ answer on
# 127.0.0.1 (starting or, as root on Debian/Ubuntu, installing them: see scripts/services.sh), then runs
# every module's tests (unit and integration) in three lanes at once:
#
#   engine   idempotency-spring-boot-autoconfigure: its unit tests and integration tests
#   faults   fault-injection: kill, outage and crash suites in child JVMs, the longest module,
#            started at once rather than after the modules below
#   users    idempotency-spring-boot-starter, idempotency-spring-boot-test (the test kit), sample-app,
#            benchmarks: the other modules that use the engine, mostly waiting on brokers; sample-app is
#            also processed with Spring AOT and its main integration test run again in AOT mode (its aot
#            profile, docs/aot-and-native.md)
#
# The lanes share no database (the engine's integration tests use test_fork<n>, fault-injection
# test_fault<n>, the test kit `test`, sample-app H2), no Redis key, stream or RabbitMQ queue (each
# test uses names of its own run) and no Kafka broker (each JVM starts its own). The faults and users lanes take the engine
# from the local Maven repository, so the command first builds and installs every module without
# running tests. Each lane writes target/lane-<name>.log, printed (engine, faults, then users) once
# the lane ends; the command fails if any lane fails.
#
#   ./scripts/test.sh --serial [maven arguments]
# runs one `./mvnw verify` over all modules instead, as does any call with extra arguments, e.g.
#   ./scripts/test.sh -pl idempotency-spring-boot-autoconfigure -Dtest=SomeTest
#
#   ./scripts/test.sh --fast [maven arguments]
# is the fast lane: every module's unit tests (*Tests, surefire) and nothing else, so no service
# check and no *IntegrationTests (failsafe is skipped with -DskipITs). It needs no PostgreSQL,
# MariaDB, Redis, RabbitMQ or Kafka: unit tests use in-memory H2/HSQLDB and closed ports only. It skips
# the sample app's Spring AOT processing (-DskipAot).
#
# SKIP_SERVICES=1 skips the service check (services provided some other way).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [[ "${1:-}" == --fast ]]; then
	shift
	exec ./mvnw -B verify -DskipITs -DskipAot "$@"
fi

if [[ "${SKIP_SERVICES:-}" != 1 ]]; then
	bash scripts/services.sh
fi

if [[ "${1:-}" == --serial ]]; then
	shift
	exec ./mvnw -B verify "$@"
fi
if [[ $# -gt 0 ]]; then
	exec ./mvnw -B verify "$@"
fi

start=$SECONDS
echo "[test] building and installing every module without tests"
# -DskipAot: the users lane processes the sample app with Spring AOT; once is enough.
./mvnw -B -q install -DskipTests -DskipITs -DskipAot

mkdir -p target
# Runs one lane in a session of its own (so that an interrupt stops its whole process tree),
# writing its Maven output and its duration to target/lane-<name>.log.
lane() {
	local name=$1
	shift
	setsid bash -c 'begin=$SECONDS; ./mvnw -B verify "$@"; rc=$?;
		echo "[test] lane '"$name"' ended with status $rc after $((SECONDS - begin)) s"; exit $rc' \
		lane "$@" >"target/lane-$name.log" 2>&1 &
}
lane engine -pl idempotency-spring-boot-autoconfigure
engine=$!
lane faults -pl fault-injection
faults=$!
lane users -pl idempotency-spring-boot-starter,idempotency-spring-boot-test,sample-app,benchmarks
users=$!
trap 'kill -TERM -- "-$engine" "-$faults" "-$users" 2>/dev/null; exit 130' INT TERM
echo "[test] three lanes running: engine (idempotency-spring-boot-autoconfigure), faults (fault-injection) and"
echo "[test] users (starter, test kit, sample-app, benchmarks); logs in target/lane-engine.log, target/lane-faults.log and"
echo "[test] target/lane-users.log"

status=0
failed=""
for name in engine faults users; do
	if wait "${!name}"; then
		result=passed
	else
		status=1
		failed="$failed $name"
		result=FAILED
	fi
	echo "================ lane $name: $result ================"
	cat "target/lane-$name.log"
done
echo "[test] all lanes done in $((SECONDS - start)) s: $([[ $status == 0 ]] && echo passed || echo "FAILED:$failed")"
exit $status

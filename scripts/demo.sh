#!/usr/bin/env bash
# Runs the sample application's demo: H2 and an in-process Kafka broker (a consumer-group flow and a
# share-group flow), plus a Redis Stream flow when Redis answers on localhost:6379 and a RabbitMQ flow
# when RabbitMQ answers on localhost:5672 (both optional: a flow whose broker does not answer is
# skipped with a line saying so; the share-group flow is skipped, with a line, on a cluster of your
# own set with spring.kafka.bootstrap-servers, unless demo.kafka-share.enabled=true).
# Extra arguments go to the spring-boot:run step, e.g.
#   ./scripts/demo.sh -Dspring-boot.run.arguments=--server.port=8081
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Install the sample app and the modules it depends on, so spring-boot:run finds them.
./mvnw -B -q -DskipTests -pl sample-app -am install

exec ./mvnw -B -q -pl sample-app spring-boot:run "$@"

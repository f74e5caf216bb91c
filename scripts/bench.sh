#!/usr/bin/env bash
# Throughput benchmarks of @Idempotent (JDBC store) against the hand-written dedup insert and against
# Camel's and Spring Integration's repositories, on PostgreSQL and MariaDB (and Redis peers).
# See docs/performance.md.
#
#   scripts/bench.sh                         quick mode: all variants, both databases, 1 and 4 threads
#                                            (~2 s rounds; well under 10 minutes in all)
#   scripts/bench.sh --mode full             2 forks, 3 x 5 s warm-up, 5 x 5 s measured rounds (~50 min)
#   scripts/bench.sh --db postgresql --threads 4 --variants ideal,starter-jdbc
#   scripts/bench.sh --variants jdbc         only the JDBC variants (redis: only the Redis ones)
#   scripts/bench.sh --jfr                   one JFR recording per fork under benchmarks/target/bench-results
#   scripts/bench.sh --docs docs/performance.md --note "..."   also replace the results block of that page
#
# Other options: --passes N (repeat the whole matrix, median over all) --forks N --warmup N --warmup-time S --rounds N --round-time S --results DIR.
# Environment: SKIP_BUILD=1 reuses the last build; SKIP_SERVICES=1 skips scripts/services.sh;
# BENCH_JAVA_OPTS is added to the launcher JVM, e.g. -Dbench.postgresql.url=jdbc:postgresql://host/db
# (also bench.mariadb.url, bench.redis.host/port/database; passed on to the benchmark forks).
#
# End-to-end harnesses (not JMH; each prints a Markdown report and writes it under benchmarks/target/bench-results):
#   scripts/bench.sh --suite streams         issue 4: Redis Stream msgs/s through @RedisStreamListener + @Idempotent
#                                            (JDBC store, also with transaction batching: one transaction per read;
#                                            redis-atomic) against hand-written XREADGROUP loops, with
#                                            1 and 4 consumers, on PostgreSQL or MariaDB (~6 min). Options: --db postgresql|mariadb
#                                            --messages N --rounds N --warmup N --concurrency 1,4 --batch N
#                                            --variants hand-plain,hand-ideal,starter-jdbc,starter-jdbc-batched,starter-redis
#                                            --pool boot-default|tuned (default: Spring Boot's pool; tuned: consumers + 2)
#   scripts/bench.sh --suite outbox          issue 5: outbox relay rows/s (1 and 2 relays) on PostgreSQL or MariaDB to an
#                                            in-process Kafka broker against plain KafkaTemplate sends, and commit-to-ack
#                                            latency (~3 min). Options: --db postgresql|mariadb (default postgresql)
#                                            --rows N --sent-rows N (rows already sent, statistics refreshed, before each
#                                            throughput round; default 0) --rounds N --warmup N --poll-interval D
#                                            --latency-poll-intervals 500ms,50ms --rate N --seconds N
#                                            --latency-threads N (publishing threads of the latency part; default 1)
#                                            --variants relay-1,relay-2,kafka-batch,kafka-sync,modulith (modulith: Spring
#                                            Modulith's JDBC event publication registry externalizing to Kafka, a peer)
#   scripts/bench.sh --suite kafka           @KafkaListener + @Idempotent msgs/s, record and batch listeners, on PostgreSQL
#                                            or MariaDB and an in-process Kafka broker, against the same listeners with the
#                                            hand-written insert-or-ignore, with 1 and 4 consumers, on Spring Boot's default
#                                            pool and the database's default isolation (~5 min).
#                                            Options: --db postgresql|mariadb (default postgresql) --messages N --rounds N
#                                            --warmup N --concurrency 1,4
#                                            --variants plain-record,hand-record,starter-record,starter-record-batched,
#                                            hand-batch,starter-batch,hand-bulk-batch,starter-bulk-batch
#                                            --keying business-key|account (account: every variant's records partitioned
#                                            by account, each account credited by one consumer; default business-key)
#   scripts/bench.sh --suite filters         issue 15: duplicate filters on PostgreSQL + Redis: a replay storm (keys already
#                                            processed, re-delivered with 10% new ones) and the normal 10%-duplicates
#                                            workload through @Idempotent (JDBC store), filters off (none) against bloom,
#                                            redis-recent, bloom+redis-recent, bitmap+redis-recent, with 1 and 4 consumers;
#                                            then the local filters restarted and rebuilt from the table; and the size of
#                                            a Bloom filter for 10 million keys (~35 min short on a busy 2-core machine). Options: --mode short|full
#                                            (20,000 or 100,000 replayed keys) --storm N --normal N --rounds N --warmup N
#                                            --concurrency 1,4 --variants none,bloom,... --restart false --bloom-sizing false
#                                            --pool-size N (default: Spring Boot's pool of 10)
#   scripts/bench.sh --suite rabbit          issue 29: @RabbitListener + @Idempotent msgs/s on PostgreSQL (Spring Boot's
#                                            default pool and isolation) and the local RabbitMQ (127.0.0.1:5672), against a
#                                            hand-written MANUAL-ack listener with insert-or-ignore and the business writes in
#                                            one JDBC transaction, acknowledging after the commit; 10% duplicates, every round
#                                            checked (one effect per distinct id, nothing left unacknowledged), with 1 and 4
#                                            consumers. Options: --db postgresql|mariadb --messages N --rounds N --warmup N
#                                            --concurrency 1,4 --variants hand,starter
#                                            (-Dbench.rabbitmq.host/port in BENCH_JAVA_OPTS for another broker)
#   scripts/bench.sh --suite http            issue 31: an idempotent POST (@Idempotent, Idempotency-Key) against the same
#                                            handler without it, one application and database, embedded Tomcat and the
#                                            JDK client, rounds alternated ABBA (~3 min). Options: --db postgresql|mariadb
#                                            --threads N (8) --rounds N (6) --warmup N (2) --round-time seconds (10)
#   scripts/bench.sh --suite bootjdbc        issue 33 item 3: two minimal Spring Boot applications on Spring Boot's defaults
#                                            (pool, JdbcTransactionManager, the server's isolation), a @Transactional
#                                            hand-written insert-or-ignore against @Idempotent, the same JdbcTemplate
#                                            business writes, 10% duplicates, rounds interleaved, every round checked, on
#                                            PostgreSQL and MariaDB with 1 and 4 threads; run on a classpath without the
#                                            module's Redis, Kafka, RabbitMQ, web and Micrometer jars. Options:
#                                            --db postgresql,mariadb --messages N (4000) --rounds N (9) --warmup N (2)
#                                            --threads 1,4 --variants hand,starter
#   scripts/bench.sh --suite share           issue 30: Kafka share-group @KafkaListener + @Idempotent msgs/s on PostgreSQL
#                                            or MariaDB and an in-process broker with share groups on, against a
#                                            hand-written share listener (ShareAckMode MANUAL) with insert-or-ignore and the
#                                            business writes in one JDBC transaction, accepting after the commit; 10%
#                                            duplicates, every round checked (one effect per distinct key, every record
#                                            accepted), with 1 and 4 consumers. Options: --db postgresql|mariadb
#                                            --messages N --rounds N --warmup N --concurrency 1,4 --variants hand,starter
#   (--suite jmh, the default, is the JMH run above.)
#
# The benchmarks are never part of ./mvnw verify: the build only compiles the module.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if [[ "${SKIP_SERVICES:-}" != 1 ]]; then
	bash scripts/services.sh
	# The benchmark's own databases (the services script creates `test`).
	psql -X -w -q -h 127.0.0.1 -U postgres -d postgres -Atc "select 1 from pg_database where datname = 'test_bench'" \
		| grep -q 1 || psql -X -w -q -h 127.0.0.1 -U postgres -d postgres -c 'create database test_bench'
	mysql_cli="$(command -v mariadb || command -v mysql)"
	"$mysql_cli" -h 127.0.0.1 -u root -e 'create database if not exists test_bench'
fi

if [[ "${SKIP_BUILD:-}" != 1 ]]; then
	./mvnw -B -q -pl benchmarks -am package -DskipTests
fi

main=dev.idempotency.benchmarks.jmh.BenchMain
minimal_excludes='/(spring-modulith-|spring-data-redis|spring-boot-data-redis|spring-boot-starter-data-redis|lettuce-core|redisson|spring-kafka|spring-boot-kafka|kafka[-_]|spring-amqp|spring-rabbit|spring-boot-amqp|amqp-client|spring-webmvc|spring-boot-webmvc|spring-boot-starter-webmvc|spring-boot-tomcat|spring-boot-starter-tomcat|tomcat-|spring-boot-http|spring-boot-web-server|micrometer-(core|registry|jakarta)|camel-|spring-integration-|netty-|reactor-)'
if [[ "${1:-}" == --suite ]]; then
	case "${2:-}" in
		jmh) ;;
		streams) main=dev.idempotency.benchmarks.stream.StreamBench ;;
		outbox) main=dev.idempotency.benchmarks.outbox.OutboxBench ;;
		kafka) main=dev.idempotency.benchmarks.kafka.KafkaBench ;;
		filters) main=dev.idempotency.benchmarks.filters.FilterBench ;;
		rabbit) main=dev.idempotency.benchmarks.rabbit.RabbitBench ;;
		http) main=dev.idempotency.benchmarks.http.HttpBench ;;
		bootjdbc) main=dev.idempotency.benchmarks.bootjdbc.BootJdbcBench ;;
		share) main=dev.idempotency.benchmarks.share.ShareBench ;;
		*) echo "Unknown suite '${2:-}': use jmh, streams, outbox, kafka, filters, rabbit, http, bootjdbc or share" >&2; exit 2 ;;
	esac
	suite_args=("$1" "$2")
	shift 2
fi

classpath="benchmarks/target/classes:$(cat benchmarks/target/benchmark.classpath)"
if [[ "$main" == *.BootJdbcBench ]]; then
	# A minimal JDBC application: without the module's Redis, Kafka, RabbitMQ, web and Micrometer jars,
	# whose auto-configurations an application of spring-boot-starter-jdbc and this starter never runs.
	classpath="$(tr ':' '\n' <<<"$classpath" | grep -v -E "$minimal_excludes" | paste -sd:)"
fi
command="scripts/bench.sh${suite_args:+ ${suite_args[*]}}"
if (($#)); then
	command+=" $(printf '%q ' "$@")"
fi
# shellcheck disable=SC2086 # BENCH_JAVA_OPTS is a list of options
exec java ${BENCH_JAVA_OPTS:-} -Xmx512m -cp "$classpath" \
	-Dbench.command="${command% }" \
	"$main" "$@"

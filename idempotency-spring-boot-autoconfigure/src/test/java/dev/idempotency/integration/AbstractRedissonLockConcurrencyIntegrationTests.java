package dev.idempotency.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.testsupport.TestRedisConnections;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lock-then-double-check mode in front of the JDBC store: eight consumer threads deliver 100 keys,
 * each four times at the same instant (four threads on one key, four on another, 50 rounds), to an
 * {@code @Idempotent} method that credits an account, writes a ledger row and takes 100 ms. Then
 * every record is made expired (retention over, not yet purged) and the same deliveries run again:
 * the race that deadlocks on MariaDB without a lock. Every key must apply exactly once per pass,
 * the three duplicates of each must wait on the Redisson lock and then be skipped, and no attempt
 * may fail.
 */
abstract class AbstractRedissonLockConcurrencyIntegrationTests {

	static final int THREADS = 8;

	static final int ROUNDS = 50;

	static final Duration WORK = Duration.ofMillis(100);

	/** Spring Boot properties that point the DataSource at the database under test. */
	protected abstract String[] dataSourceProperties();

	@Test
	void everyKeyAppliesOnceAndItsDuplicatesWaitOnTheLockEvenWhenItsRecordExpired() throws Exception {
		try (ConfigurableApplicationContext context = start(true)) {
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			CountingLock lock = context.getBean(CountingLock.class);
			for (int pass = 1; pass <= 2; pass++) {
				long started = System.nanoTime();
				int failed = deliver(context.getBean(Ledger.class));
				System.out.printf("%s pass %d: %d deliveries in %d ms, %d lock waits, %d failed attempts%n",
						getClass().getSimpleName(), pass, THREADS * ROUNDS,
						TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), lock.waits.get(), failed);
				assertThat(failed).as("failed attempts (deadlocks, lock timeouts) in pass %d", pass).isZero();
				assertThat(jdbc.queryForList("SELECT order_id FROM it_lock_ledger GROUP BY order_id HAVING COUNT(*) <> ?",
						String.class, pass))
					.as("orders not applied exactly once per pass")
					.isEmpty();
				assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM it_lock_ledger", Integer.class))
					.isEqualTo(pass * 2 * ROUNDS);
				// Retention over, purge not yet run: the next pass races on expired records.
				jdbc.update("UPDATE idempotency_record SET expires_at = created_at WHERE namespace = 'it-lock-ledger'");
			}
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			int deliveries = 2 * THREADS * ROUNDS;
			assertThat(count(meters, "processed")).isEqualTo(2 * 2 * ROUNDS);
			assertThat(count(meters, "duplicate")).isEqualTo(deliveries - 2 * 2 * ROUNDS);
			assertThat(count(meters, "failed") + count(meters, "in_progress")).isZero();
			assertThat(lock.acquired).hasValue(deliveries);
			assertThat(lock.waits.get()).as("duplicates that waited on the lock").isGreaterThan(deliveries / 2);
		}
	}

	ConfigurableApplicationContext start(boolean lockEnabled) {
		List<String> properties = new ArrayList<>(List.of(dataSourceProperties()));
		properties.addAll(List.of(TestRedisConnections.properties()));
		properties.add("idempotency.jdbc.initialize-schema=always");
		properties.add("idempotency.jdbc.purge.enabled=false");
		properties.add("idempotency.redisson.lock.enabled=" + lockEnabled);
		properties.add("idempotency.redisson.lock.key-prefix="
				+ TestRedisConnections.uniqueKeyPrefix(getClass()));
		properties.add("spring.datasource.hikari.maximum-pool-size=" + (THREADS + 4));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(LedgerApplication.class)
			.web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
		jdbc.execute("DROP TABLE IF EXISTS it_lock_ledger");
		jdbc.execute("CREATE TABLE it_lock_ledger (order_id VARCHAR(64) NOT NULL, amount BIGINT NOT NULL)");
		jdbc.update("DELETE FROM idempotency_record WHERE namespace = 'it-lock-ledger'");
		return context;
	}

	/**
	 * Each round, threads 0-3 deliver one key and threads 4-7 another, all at the same barrier; a
	 * failed attempt is retried as a broker would. Returns the failed attempts.
	 */
	static int deliver(Ledger ledger) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		AtomicInteger failed = new AtomicInteger();
		CyclicBarrier round = new CyclicBarrier(THREADS);
		try {
			List<Future<?>> consumers = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				String side = (t < THREADS / 2) ? "a" : "b";
				consumers.add(executor.submit(() -> {
					for (int r = 0; r < ROUNDS; r++) {
						round.await(60, TimeUnit.SECONDS);
						for (int attempt = 1;; attempt++) {
							try {
								ledger.credit("order-" + r + side, 10);
								break;
							}
							catch (RuntimeException ex) {
								failed.incrementAndGet();
								if (attempt == 10) {
									throw ex;
								}
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> consumer : consumers) {
				consumer.get(5, TimeUnit.MINUTES);
			}
		}
		finally {
			executor.shutdownNow();
		}
		return failed.get();
	}

	static long count(MeterRegistry meters, String outcome) {
		return count(meters, outcome, "it-lock-ledger");
	}

	static long count(MeterRegistry meters, String outcome, String namespace) {
		return meters.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, namespace)
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong((timer) -> timer.count())
			.sum();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class LedgerApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		static BeanPostProcessor countingLock() {
			return CountingLock.wrapping(WORK.dividedBy(2));
		}

		@Bean
		Ledger ledger(JdbcTemplate jdbc) {
			return new Ledger(jdbc);
		}

	}

	static class Ledger {

		private final JdbcTemplate jdbc;

		Ledger(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Idempotent(key = "#orderId", namespace = "it-lock-ledger")
		public void credit(String orderId, long amount) throws InterruptedException {
			this.jdbc.update("INSERT INTO it_lock_ledger (order_id, amount) VALUES (?, ?)", orderId, amount);
			Thread.sleep(WORK.toMillis());
		}

	}

}

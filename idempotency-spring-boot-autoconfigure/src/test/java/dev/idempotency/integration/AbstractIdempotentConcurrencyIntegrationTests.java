package dev.idempotency.integration;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Eight consumer threads deliver 8,000 order events, about 30% of them repeats, some racing on the
 * same key at the same instant, to an {@code @Idempotent} method that credits an account and writes
 * a ledger row in the same database. Failed deliveries (lock timeouts, deadlocks) are retried as a
 * broker would. Every order must be credited exactly once.
 */
abstract class AbstractIdempotentConcurrencyIntegrationTests {

	private static final int THREADS = 8;

	private static final int DELIVERIES_PER_THREAD = 1_000;

	private static final int RACES = 20;

	private static final int MAX_ATTEMPTS = 10;

	/** Spring Boot properties that point the DataSource at the database under test. */
	protected abstract String[] dataSourceProperties();

	@Test
	void everyOrderIsCreditedExactlyOnceUnderConcurrentDuplicates() throws Exception {
		try (ConfigurableApplicationContext context = start(true)) {
			Deliveries deliveries = Deliveries.generate(new Random(42));
			long started = System.nanoTime();
			int failedAttempts = deliver(context.getBean(Ledger.class), deliveries);
			System.out.printf("%s: %d deliveries (%d unique) by %d threads in %d ms, %d failed attempts retried%n",
					getClass().getSimpleName(), deliveries.total(), deliveries.uniqueKeys().size(), THREADS,
					TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), failedAttempts);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);

			assertThat(jdbc.queryForList("SELECT order_id FROM it_ledger_entry GROUP BY order_id HAVING COUNT(*) > 1",
					String.class))
				.as("orders credited more than once")
				.isEmpty();
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM it_ledger_entry", Integer.class))
				.isEqualTo(deliveries.uniqueKeys().size());
			assertThat(jdbc.queryForObject("SELECT SUM(balance) FROM it_ledger_account", Long.class))
				.isEqualTo(deliveries.expectedTotal());

			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(count(meters, "processed")).isEqualTo(deliveries.uniqueKeys().size());
			assertThat(count(meters, "duplicate")).isEqualTo(deliveries.total() - deliveries.uniqueKeys().size());
			assertThat(count(meters, "failed")).isEqualTo(failedAttempts);
			assertThat(count(meters, "processed") + count(meters, "duplicate") + count(meters, "failed"))
				.as("received = processed + duplicate + failed")
				.isEqualTo(deliveries.total() + failedAttempts);
		}
	}

	@Test
	void withoutIdempotentTheSameDeliveriesCreditOrdersTwice() throws Exception {
		try (ConfigurableApplicationContext context = start(false)) {
			Deliveries deliveries = Deliveries.generate(new Random(7));
			deliver(context.getBean(Ledger.class), deliveries);
			Integer ledgerRows = context.getBean(JdbcTemplate.class)
				.queryForObject("SELECT COUNT(*) FROM it_ledger_entry", Integer.class);
			assertThat(ledgerRows).isGreaterThan(deliveries.uniqueKeys().size());
		}
	}

	private ConfigurableApplicationContext start(boolean idempotencyEnabled) {
		List<String> properties = new ArrayList<>(List.of(dataSourceProperties()));
		properties.add("idempotency.enabled=" + idempotencyEnabled);
		properties.add("idempotency.jdbc.initialize-schema=always");
		properties.add("idempotency.jdbc.purge.enabled=false");
		properties.add("spring.datasource.hikari.maximum-pool-size=" + (THREADS + 4));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(LedgerApplication.class)
			.web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
		jdbc.execute("DROP TABLE IF EXISTS it_ledger_entry");
		jdbc.execute("DROP TABLE IF EXISTS it_ledger_account");
		jdbc.execute("CREATE TABLE it_ledger_account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
		jdbc.execute("CREATE TABLE it_ledger_entry (order_id VARCHAR(64) NOT NULL, amount BIGINT NOT NULL)");
		for (int account = 0; account < 10; account++) {
			jdbc.update("INSERT INTO it_ledger_account (id, balance) VALUES (?, 0)", account);
		}
		if (idempotencyEnabled) {
			jdbc.update("DELETE FROM idempotency_record WHERE namespace = 'it-ledger'");
		}
		return context;
	}

	/** Delivers every thread's share concurrently; returns how many attempts failed and were retried. */
	private static int deliver(Ledger ledger, Deliveries deliveries) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		AtomicInteger failedAttempts = new AtomicInteger();
		CyclicBarrier race = new CyclicBarrier(THREADS);
		try {
			List<Future<?>> consumers = new ArrayList<>();
			for (List<String> share : deliveries.shares()) {
				consumers.add(executor.submit(() -> {
					for (String key : share) {
						if (key.startsWith("race-")) {
							race.await(30, TimeUnit.SECONDS);
						}
						deliverWithRetries(ledger, key, failedAttempts);
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
		return failedAttempts.get();
	}

	private static void deliverWithRetries(Ledger ledger, String key, AtomicInteger failedAttempts) {
		for (int attempt = 1;; attempt++) {
			try {
				ledger.credit(key, Deliveries.amount(key));
				return;
			}
			catch (RuntimeException ex) {
				failedAttempts.incrementAndGet();
				if (attempt == MAX_ATTEMPTS) {
					throw ex;
				}
			}
		}
	}

	private static long count(MeterRegistry meters, String outcome) {
		return meters.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, "it-ledger")
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.timers()
			.stream()
			.mapToLong((timer) -> timer.count())
			.sum();
	}

	/** What each consumer thread delivers, in order. */
	record Deliveries(List<List<String>> shares, Set<String> uniqueKeys) {

		static Deliveries generate(Random random) {
			int total = THREADS * DELIVERIES_PER_THREAD;
			List<String> stream = new ArrayList<>(total);
			int perThreadRegular = DELIVERIES_PER_THREAD - RACES;
			int regular = THREADS * perThreadRegular;
			int unique = (int) (regular * 0.7);
			for (int i = 0; i < unique; i++) {
				stream.add("order-" + i);
			}
			while (stream.size() < regular) {
				stream.add("order-" + random.nextInt(unique));
			}
			Collections.shuffle(stream, random);
			List<List<String>> shares = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				List<String> share = new ArrayList<>(stream.subList(t * perThreadRegular, (t + 1) * perThreadRegular));
				for (int r = 0; r < RACES; r++) {
					// Every thread delivers race-r at the same barrier: all eight claim one key at once.
					share.add(r * (perThreadRegular / RACES), "race-" + r);
				}
				shares.add(share);
			}
			Set<String> keys = new LinkedHashSet<>();
			shares.forEach(keys::addAll);
			return new Deliveries(shares, keys);
		}

		int total() {
			return this.shares.stream().mapToInt(List::size).sum();
		}

		long expectedTotal() {
			return this.uniqueKeys.stream().mapToLong(Deliveries::amount).sum();
		}

		static long amount(String key) {
			return 1 + Math.floorMod(key.hashCode(), 100);
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class LedgerApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
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

		@Idempotent(key = "#orderId", namespace = "it-ledger")
		public void credit(String orderId, long amount) {
			this.jdbc.update("UPDATE it_ledger_account SET balance = balance + ? WHERE id = ?", amount,
					Math.floorMod(orderId.hashCode(), 10));
			this.jdbc.update("INSERT INTO it_ledger_entry (order_id, amount) VALUES (?, ?)", orderId, amount);
		}

	}

}

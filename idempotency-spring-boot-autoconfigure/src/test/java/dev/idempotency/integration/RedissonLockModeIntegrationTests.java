package dev.idempotency.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.core.FailureClassifier;
import dev.idempotency.core.FailureKind;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.testsupport.TcpProxy;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestRedisConnections;
import dev.idempotency.testsupport.TestRedissonClients;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Lock-then-double-check mode when the lock is lost: a lease that ends while the method still runs
 * (the store decides the next delivery: the JDBC store makes it wait on the row lock and skip it,
 * the Redisson store reports it in progress), and Redis unreachable while locking (an
 * infrastructure failure, the method not run).
 */
class RedissonLockModeIntegrationTests {

	private static final Duration SLOW_WORK = Duration.ofSeconds(3);

	private final ExecutorService executor = Executors.newFixedThreadPool(2);

	@AfterEach
	void stopThreads() {
		this.executor.shutdownNow();
	}

	@Test
	void leaseEndingMidMethodLetsTheNextDeliveryInAndTheJdbcStoreMakesItWaitAndSkip() throws Exception {
		List<String> properties = new ArrayList<>(List.of(TestDatabases.postgresProperties()));
		properties.add("idempotency.jdbc.initialize-schema=always");
		try (ConfigurableApplicationContext context = start(properties)) {
			SlowWork work = context.getBean(SlowWork.class);
			CountingLock lock = context.getBean(CountingLock.class);
			String key = "jdbc-" + UUID.randomUUID();
			Future<?> first = deliver(work, key);
			await().atMost(Duration.ofSeconds(5)).until(() -> work.started() == 1);
			long secondStarted = System.nanoTime();
			Future<?> second = deliver(work, key);
			// The first delivery's lease (1 s) ends while its method still runs: the second gets the lock.
			await().atMost(Duration.ofSeconds(2)).until(() -> lock.acquired.get() == 2);
			assertThat(first).isNotDone();
			second.get(10, TimeUnit.SECONDS);
			first.get(10, TimeUnit.SECONDS);
			long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - secondStarted);
			System.out.printf("JDBC store: second delivery got the lapsed lock, then waited on the row lock; "
					+ "done after %d ms%n", waitedMillis);
			assertThat(work.applied()).as("applied once").isEqualTo(1);
			assertThat(outcomes(context)).containsEntry("processed", 1L).containsEntry("duplicate", 1L);
		}
	}

	@Test
	void leaseEndingMidMethodLetsTheNextDeliveryInAndTheRedissonStoreReportsItInProgress() throws Exception {
		List<String> properties = new ArrayList<>(List.of(h2()));
		properties.add("idempotency.store.type=redisson");
		String prefix = TestRedisConnections.uniqueKeyPrefix(getClass());
		properties.add("idempotency.redisson.key-prefix=" + prefix);
		try (ConfigurableApplicationContext context = start(properties)) {
			SlowWork work = context.getBean(SlowWork.class);
			String key = "redisson-" + UUID.randomUUID();
			Future<?> first = deliver(work, key);
			await().atMost(Duration.ofSeconds(5)).until(() -> work.started() == 1);
			Future<?> second = deliver(work, key);
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> second.get(5, TimeUnit.SECONDS))
				.withCauseInstanceOf(IdempotencyInProgressException.class);
			assertThat(first).isNotDone();
			first.get(10, TimeUnit.SECONDS);
			work.apply(key);
			assertThat(work.applied()).as("applied once").isEqualTo(1);
			assertThat(outcomes(context)).containsEntry("processed", 1L)
				.containsEntry("in_progress", 1L)
				.containsEntry("duplicate", 1L);
			TestRedissonClients.deleteKeys(context.getBean(RedissonClient.class), prefix);
		}
	}

	@Test
	void redisUnreachableWhileLockingIsAnInfrastructureFailureAndTheMethodDoesNotRun() throws Exception {
		try (TcpProxy proxy = TcpProxy.start(TestRedisConnections.host(), TestRedisConnections.port())) {
			List<String> properties = new ArrayList<>(List.of(h2()));
			properties.add("spring.data.redis.port=" + proxy.port());
			properties.add("spring.data.redis.timeout=500ms");
			properties.add("spring.data.redis.connect-timeout=500ms");
			properties.add("idempotency.redisson.lock.lease-time=30s");
			try (ConfigurableApplicationContext context = start(properties)) {
				SlowWork work = context.getBean(SlowWork.class);
				work.fast();
				work.apply("before-cut");
				proxy.cut();
				long cut = System.nanoTime();
				assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> work.apply("during-cut"))
					.satisfies((ex) -> assertThat(context.getBean(FailureClassifier.class).classify(ex))
						.isEqualTo(FailureKind.INFRASTRUCTURE));
				long failedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut);
				assertThat(work.started()).as("the method must not run without its lock").isEqualTo(1);
				proxy.restore();
				long restored = System.nanoTime();
				await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
					.until(() -> {
						work.apply("during-cut");
						return true;
					});
				System.out.printf("Redis cut while locking: failed after %d ms; lock mode resumed %d ms after "
						+ "the restore%n", failedAfter, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restored));
				assertThat(work.applied()).isEqualTo(2);
			}
		}
	}

	private Future<Void> deliver(SlowWork work, String key) {
		return this.executor.submit(() -> {
			work.apply(key);
			return null;
		});
	}

	private ConfigurableApplicationContext start(List<String> extra) {
		List<String> properties = new ArrayList<>(List.of(TestRedisConnections.properties()));
		properties.addAll(extra);
		properties.add("idempotency.jdbc.purge.enabled=false");
		properties.add("idempotency.redisson.lock.enabled=true");
		properties.add("idempotency.redisson.lock.key-prefix=" + TestRedisConnections.uniqueKeyPrefix(getClass()));
		if (extra.stream().noneMatch((property) -> property.startsWith("idempotency.redisson.lock.lease-time"))) {
			properties.add("idempotency.redisson.lock.lease-time=1s");
		}
		return new SpringApplicationBuilder(SlowWorkApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	private static String h2() {
		return "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
	}

	private static Map<String, Long> outcomes(ConfigurableApplicationContext context) {
		Map<String, Long> outcomes = new TreeMap<>();
		for (String outcome : List.of("processed", "duplicate", "in_progress", "failed")) {
			long count = AbstractRedissonLockConcurrencyIntegrationTests.count(context.getBean(SimpleMeterRegistry.class),
					outcome, "it-lock-lease");
			if (count > 0) {
				outcomes.put(outcome, count);
			}
		}
		return outcomes;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class SlowWorkApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		static BeanPostProcessor countingLock() {
			return CountingLock.wrapping(Duration.ofMillis(50));
		}

		@Bean
		SlowWork slowWork() {
			return new SlowWork();
		}

	}

	/** Counts its calls; read through methods, as the bean is a class-based proxy. */
	static class SlowWork {

		private final AtomicInteger started = new AtomicInteger();

		private final AtomicInteger applied = new AtomicInteger();

		private volatile boolean slow = true;

		@Idempotent(key = "#key", namespace = "it-lock-lease")
		public void apply(String key) throws InterruptedException {
			this.started.incrementAndGet();
			if (this.slow) {
				Thread.sleep(SLOW_WORK.toMillis());
			}
			this.applied.incrementAndGet();
		}

		public int started() {
			return this.started.get();
		}

		public int applied() {
			return this.applied.get();
		}

		public void fast() {
			this.slow = false;
		}

	}

}

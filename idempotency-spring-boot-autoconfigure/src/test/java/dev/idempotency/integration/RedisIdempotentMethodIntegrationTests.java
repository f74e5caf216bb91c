package dev.idempotency.integration;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.metrics.IdempotencyMeters;
import dev.idempotency.metrics.autoconfigure.IdempotencyMetricsAutoConfiguration;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.support.InMemoryIdempotencyStore;
import dev.idempotency.testsupport.TestRedisConnections;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@code @Idempotent} beans on the auto-configured Redis store and the real Redis: a duplicate is
 * skipped, a failure releases the claim so that the retry runs, a delivery in flight keeps its twin
 * out, and a business transaction on a database composes with the lease.
 */
class RedisIdempotentMethodIntegrationTests {

	private static final String PREFIX = TestRedisConnections
		.uniqueKeyPrefix(RedisIdempotentMethodIntegrationTests.class);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TransactionAutoConfiguration.class,
				DataRedisAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
				IdempotencyJdbcStoreAutoConfiguration.class, IdempotencyRedisStoreAutoConfiguration.class,
				IdempotencyAutoConfiguration.class, IdempotencyMetricsAutoConfiguration.class))
		.withPropertyValues(TestRedisConnections.properties())
		.withPropertyValues("idempotency.store.type=redis", "idempotency.redis.key-prefix=" + PREFIX);

	@AfterAll
	static void deleteKeys() {
		LettuceConnectionFactory connectionFactory = TestRedisConnections.connectionFactory();
		try {
			TestRedisConnections.deleteKeys(connectionFactory, PREFIX);
		}
		finally {
			connectionFactory.destroy();
		}
	}

	@Test
	void duplicateIsSkippedAndTheKeyIsCompletedInRedis() {
		this.contextRunner.withBean(CountingHandler.class).withBean(SimpleMeterRegistry.class).run((context) -> {
			assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(RedisIdempotencyStore.class);
			CountingHandler handler = context.getBean(CountingHandler.class);
			String id = uniqueId();
			assertThat(handler.handle(id)).isEqualTo(1);
			assertThat(handler.handle(id)).as("skipped duplicate returns the primitive default").isZero();
			assertThat(handler.calls()).isEqualTo(1);
			assertThat(entry(context, "CountingHandler#handle", id)).isEqualTo("COMPLETED");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			for (String outcome : List.of("processed", "duplicate")) {
				assertThat(registry.get(IdempotencyMeters.INVOCATIONS)
					.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
					.tag(IdempotencyMeters.STORE_TAG, "redis")
					.timer()
					.count()).as(outcome).isOne();
			}
		});
	}

	@Test
	void failureReleasesTheClaimSoTheRetryRuns() {
		this.contextRunner.withBean(FailingOnceHandler.class).run((context) -> {
			FailingOnceHandler handler = context.getBean(FailingOnceHandler.class);
			String id = uniqueId();
			assertThatIllegalStateException().isThrownBy(() -> handler.handle(id));
			assertThat(entry(context, "FailingOnceHandler#handle", id)).as("released").isNull();
			handler.handle(id);
			handler.handle(id);
			assertThat(handler.calls()).isEqualTo(2);
			assertThat(entry(context, "FailingOnceHandler#handle", id)).isEqualTo("COMPLETED");
		});
	}

	@Test
	void deliveryOfAKeyInFlightIsRejectedAsInProgress() {
		this.contextRunner.withBean(SlowHandler.class).run((context) -> {
			SlowHandler handler = context.getBean(SlowHandler.class);
			String id = uniqueId();
			int threads = 8;
			ExecutorService executor = Executors.newFixedThreadPool(threads);
			try {
				CyclicBarrier start = new CyclicBarrier(threads);
				List<Future<?>> results = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					results.add(executor.submit(() -> {
						start.await(10, TimeUnit.SECONDS);
						handler.handle(id);
						return null;
					}));
				}
				int inProgress = 0;
				for (Future<?> result : results) {
					try {
						result.get(30, TimeUnit.SECONDS);
					}
					catch (ExecutionException ex) {
						assertThat(ex.getCause()).isInstanceOf(IdempotencyInProgressException.class);
						inProgress++;
					}
				}
				assertThat(handler.calls()).isEqualTo(1);
				assertThat(inProgress).as("deliveries that must be retried").isEqualTo(threads - 1);
			}
			finally {
				executor.shutdownNow();
			}
		});
	}

	@Test
	void businessTransactionRollsBackAndTheClaimIsReleased() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class))
			.withPropertyValues("spring.datasource.generate-unique-name=true")
			.withBean(CreditingHandler.class)
			.run((context) -> {
				assertThat(context).getBean(IdempotencyStore.class).isInstanceOf(RedisIdempotencyStore.class);
				JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
				jdbc.execute("CREATE TABLE credit (order_id VARCHAR(64) NOT NULL)");
				CreditingHandler handler = context.getBean(CreditingHandler.class);
				String id = uniqueId();
				assertThatIllegalStateException().isThrownBy(() -> handler.handle(id, true));
				assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM credit", Integer.class)).isZero();
				handler.handle(id, false);
				handler.handle(id, false);
				assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM credit", Integer.class)).isOne();
			});
	}

	@Test
	void redisStoreCanBeNamedOnTheAnnotationNextToAPrimaryStore() {
		this.contextRunner.withUserConfiguration(TwoStoresConfiguration.class)
			.withBean(NamedStoreHandler.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(RedisIdempotencyStore.class);
				NamedStoreHandler handler = context.getBean(NamedStoreHandler.class);
				String id = uniqueId();
				handler.handle(id);
				handler.handle(id);
				assertThat(handler.calls()).isEqualTo(1);
				assertThat(entry(context, "NamedStoreHandler#handle", id)).isEqualTo("COMPLETED");
			});
	}

	private static String uniqueId() {
		return "order-" + UUID.randomUUID();
	}

	private static String entry(AssertableApplicationContext context, String namespace, String id) {
		StringRedisTemplate redis = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
		return redis.opsForValue().get(PREFIX + namespace + ":" + id);
	}

	static class CountingHandler {

		private final AtomicInteger calls = new AtomicInteger();

		@Idempotent(key = "#id")
		int handle(String id) {
			return this.calls.incrementAndGet();
		}

		int calls() {
			return this.calls.get();
		}

	}

	static class FailingOnceHandler {

		private final AtomicInteger calls = new AtomicInteger();

		@Idempotent(key = "#id")
		void handle(String id) {
			if (this.calls.incrementAndGet() == 1) {
				throw new IllegalStateException("first delivery fails");
			}
		}

		int calls() {
			return this.calls.get();
		}

	}

	static class SlowHandler {

		private final AtomicInteger calls = new AtomicInteger();

		@Idempotent(key = "#id")
		void handle(String id) throws InterruptedException {
			this.calls.incrementAndGet();
			new CountDownLatch(1).await(500, TimeUnit.MILLISECONDS);
		}

		int calls() {
			return this.calls.get();
		}

	}

	static class NamedStoreHandler {

		private final AtomicInteger calls = new AtomicInteger();

		@Idempotent(key = "#id", store = "redisStore")
		void handle(String id) {
			this.calls.incrementAndGet();
		}

		int calls() {
			return this.calls.get();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoStoresConfiguration {

		@Bean
		@Primary
		InMemoryIdempotencyStore localStore() {
			return new InMemoryIdempotencyStore();
		}

		@Bean
		RedisIdempotencyStore redisStore(RedisConnectionFactory connectionFactory) {
			return new RedisIdempotencyStore(connectionFactory, PREFIX);
		}

	}

	static class CreditingHandler {

		private final JdbcTemplate jdbc;

		CreditingHandler(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Idempotent(key = "#id")
		void handle(String id, boolean fail) {
			this.jdbc.update("INSERT INTO credit (order_id) VALUES (?)", id);
			if (fail) {
				throw new IllegalStateException("fails after the insert");
			}
		}

	}

}

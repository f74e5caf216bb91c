package dev.idempotency.autoconfigure.health;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.outbox.Outbox;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxAutoConfiguration;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxHealthAutoConfiguration;
import dev.idempotency.redis.stream.RedisStreamListener;
import dev.idempotency.redis.stream.RedisStreamListenerRegistry;
import dev.idempotency.redis.stream.autoconfigure.IdempotencyRedisStreamAutoConfiguration;
import dev.idempotency.redis.stream.autoconfigure.IdempotencyRedisStreamHealthAutoConfiguration;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.testsupport.RedisServerProcess;
import dev.idempotency.testsupport.TestDatabases;
import dev.idempotency.testsupport.TestRedisConnections;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The health indicators through Spring Boot's health contributor registry, against the real
 * PostgreSQL (its dedup table and outbox) and the real Redis (a Redis store and a stream listener):
 * UP while they answer, DOWN for the dedup table that is missing, for the outbox whose oldest row
 * waits too long, and for Redis when the connection points at a port where nothing listens. The
 * tables live in a schema of their own.
 */
class IdempotencyHealthIntegrationTests {

	private static final String PREFIX = TestRedisConnections.uniqueKeyPrefix(IdempotencyHealthIntegrationTests.class);

	private static final String STREAM = PREFIX + "orders";

	/** A schema of its own: the tests empty the outbox table, which must be nobody else's. */
	private static final String SCHEMA = "idempotency_health_it";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class,
				JdbcTemplateAutoConfiguration.class, TransactionAutoConfiguration.class,
				DataRedisAutoConfiguration.class, IdempotencyStoreAutoConfiguration.class,
				IdempotencyJdbcStoreAutoConfiguration.class, IdempotencyRedisStoreAutoConfiguration.class,
				IdempotencyAutoConfiguration.class, IdempotencyRedisStreamAutoConfiguration.class,
				IdempotencyOutboxAutoConfiguration.class, IdempotencyHealthAutoConfiguration.class,
				IdempotencyRedisStreamHealthAutoConfiguration.class, IdempotencyOutboxHealthAutoConfiguration.class,
				HealthContributorRegistryAutoConfiguration.class))
		.withPropertyValues(TestDatabases.postgresProperties())
		.withPropertyValues("spring.datasource.url=" + TestDatabases.postgresUrl()
				+ (TestDatabases.postgresUrl().contains("?") ? "&" : "?") + "currentSchema=" + SCHEMA)
		.withPropertyValues("idempotency.jdbc.purge.enabled=false", "idempotency.redis.key-prefix=" + PREFIX,
				"idempotency.redis.stream.poll-timeout=200ms", "idempotency.redis.stream.recovery-back-off=100ms",
				"idempotency.health.streams.inactive-threshold=1s", "spring.data.redis.timeout=2s",
				"spring.data.redis.connect-timeout=2s", "health.it.stream=" + STREAM)
		.withUserConfiguration(StreamListener.class);

	@BeforeAll
	static void createSchema() {
		try (HikariDataSource dataSource = TestDatabases.postgres()) {
			new JdbcTemplate(dataSource).execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
		}
	}

	@AfterAll
	static void deleteKeys() {
		LettuceConnectionFactory connectionFactory = TestRedisConnections.connectionFactory();
		try {
			new StringRedisTemplate(connectionFactory).delete(List.of(STREAM, STREAM + ".dlq"));
			TestRedisConnections.deleteKeys(connectionFactory, PREFIX);
		}
		finally {
			connectionFactory.destroy();
		}
	}

	@Test
	void jdbcStoreStreamsListenersAndOutboxAreUpWhileEverythingAnswers() {
		this.contextRunner.withPropertyValues(TestRedisConnections.properties())
			.withPropertyValues("idempotency.store.type=jdbc", "idempotency.jdbc.initialize-schema=always",
					"idempotency.outbox.enabled=true", "idempotency.outbox.initialize-schema=always",
					"idempotency.outbox.relay.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				// UP once its one consumer reads; on a loaded machine a read may pause longer than the
				// 1 s inactive-threshold, so the first UP is waited for, not the first answer.
				await().atMost(15, TimeUnit.SECONDS)
					.until(() -> listenerDetails(health(context, "idempotencyStreams")).get("active").equals(1)
							&& health(context, "idempotencyStreams").getStatus().equals(Status.UP));
				Health store = health(context, "idempotencyStore");
				assertThat(store.getStatus()).isEqualTo(Status.UP);
				assertThat(store.getDetails()).containsEntry("store", "jdbc").containsKey("responseTime");
				assertThat(health(context, "idempotencyListeners").getStatus()).isEqualTo(Status.UP);
				Map<String, Object> stream = listenerDetails(health(context, "idempotencyStreams"));
				assertThat(stream).containsEntry("stream", STREAM)
					.containsEntry("consumers", 1)
					.containsEntry("active", 1)
					.containsEntry("running", true);
				context.getBean(JdbcTemplate.class).update("DELETE FROM idempotency_outbox");
				Health outbox = health(context, "idempotencyOutbox");
				assertThat(outbox.getStatus()).isEqualTo(Status.UP);
				assertThat(outbox.getDetails()).containsEntry("pending", 0L).containsEntry("deadRows", 0L);
			});
	}

	@Test
	void outboxWhoseOldestRowWaitsTooLongIsDown() {
		this.contextRunner.withPropertyValues(TestRedisConnections.properties())
			.withPropertyValues("idempotency.store.type=jdbc", "idempotency.jdbc.initialize-schema=always",
					"idempotency.outbox.enabled=true", "idempotency.outbox.initialize-schema=always",
					"idempotency.outbox.relay.enabled=false", "idempotency.health.outbox.max-oldest-age=200ms")
			.run((context) -> {
				context.getBean(JdbcTemplate.class).update("DELETE FROM idempotency_outbox");
				assertThat(health(context, "idempotencyOutbox").getStatus()).isEqualTo(Status.UP);
				Outbox outbox = context.getBean(Outbox.class);
				new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult(
						(status) -> outbox.publish(PREFIX + "sink", "order-1", Map.of("orderId", "order-1")));
				awaitStatus(context, "idempotencyOutbox", Status.DOWN);
				Health health = health(context, "idempotencyOutbox");
				assertThat(health.getDetails()).containsEntry("pending", 1L).containsKey("oldestPendingAge");
				assertThat(health.getDetails().get("reasons")).asString().contains("oldest unsent row");
				context.getBean(JdbcTemplate.class).update("DELETE FROM idempotency_outbox");
			});
	}

	@Test
	void jdbcStoreWhoseTableIsMissingIsDown() {
		this.contextRunner.withPropertyValues(TestRedisConnections.properties())
			// Missing on purpose, with the check that would stop start-up off.
			.withPropertyValues("idempotency.store.type=jdbc", "idempotency.jdbc.initialize-schema=never",
					"idempotency.jdbc.schema-check=off", "idempotency.jdbc.table-name=health_it_missing_table")
			.run((context) -> {
				Health store = health(context, "idempotencyStore");
				assertThat(store.getStatus()).isEqualTo(Status.DOWN);
				assertThat(store.getDetails().get("error")).asString()
					.startsWith(IdempotencyStoreException.class.getName())
					.contains("health_it_missing_table");
				assertThat(store.getDetails().get("cause")).asString().contains("does not exist");
			});
	}

	@Test
	void redisStoreIsUpWhileRedisAnswers() {
		this.contextRunner.withPropertyValues(TestRedisConnections.properties())
			.withPropertyValues("idempotency.store.type=redis")
			.run((context) -> {
				Health store = health(context, "idempotencyStore");
				assertThat(store.getStatus()).isEqualTo(Status.UP);
				assertThat(store.getDetails()).containsEntry("store", "redis");
			});
	}

	@Test
	void redisStoreAndStreamsAreDownWhenRedisDoesNotAnswer() {
		LettuceConnectionFactory unreachable = TestRedisConnections.unreachable();
		int closedPort = unreachable.getPort();
		unreachable.destroy();
		this.contextRunner
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + closedPort,
					"idempotency.store.type=redis")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				// The container reported its inactive subscription when it started: the first health
				// request after the threshold is already DOWN, without an earlier request to start the clock.
				Thread.sleep(1500);
				Health streams = health(context, "idempotencyStreams");
				assertThat(streams.getStatus()).isEqualTo(Status.DOWN);
				assertThat(listenerDetails(streams)).containsEntry("active", 0).containsEntry("running", true);
				assertThat((Long) listenerDetails(streams).get("inactiveFor")).isGreaterThan(1000L);
				Health store = health(context, "idempotencyStore");
				assertThat(store.getStatus()).isEqualTo(Status.DOWN);
				assertThat(store.getDetails()).containsEntry("store", "redis");
				assertThat(store.getDetails().get("error")).asString()
					.startsWith(IdempotencyStoreException.class.getName());
				assertThat(store.getDetails().get("cause")).asString().contains("Connection refused");
				// A container stopped on purpose does not count against the health.
				context.getBean(RedisStreamListenerRegistry.class).getListenerContainer("health-it").stop();
				Health stopped = health(context, "idempotencyStreams");
				assertThat(stopped.getStatus()).isEqualTo(Status.UP);
				assertThat(listenerDetails(stopped)).containsEntry("running", false).doesNotContainKey("inactiveFor");
			});
	}

	@Test
	void redisStoreTurnsDownWhenItsOwnRedisIsStoppedAndUpWhenItIsBack() throws Exception {
		try (RedisServerProcess redis = new RedisServerProcess()) {
			redis.start();
			this.contextRunner
				.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
						"idempotency.store.type=redis")
				.run((context) -> {
					awaitStatus(context, "idempotencyStore", Status.UP);
					redis.kill();
					awaitStatus(context, "idempotencyStore", Status.DOWN);
					assertThat(health(context, "idempotencyStore").getDetails()).containsEntry("store", "redis");
					redis.start();
					awaitStatus(context, "idempotencyStore", Status.UP);
				});
		}
	}

	private static Health health(AssertableApplicationContext context, String name) {
		HealthContributor contributor = context.getBean(HealthContributorRegistry.class).getContributor(name);
		assertThat(contributor).as("health contributor %s", name).isInstanceOf(HealthIndicator.class);
		return ((HealthIndicator) contributor).health();
	}

	private static void awaitStatus(AssertableApplicationContext context, String name, Status status) {
		await().atMost(15, TimeUnit.SECONDS)
			.pollInterval(100, TimeUnit.MILLISECONDS)
			.until(() -> health(context, name).getStatus().equals(status));
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> listenerDetails(Health health) {
		Map<String, Object> listeners = (Map<String, Object>) health.getDetails().get("listeners");
		assertThat(listeners).containsOnlyKeys("health-it");
		return (Map<String, Object>) listeners.get("health-it");
	}

	static class StreamListener {

		@RedisStreamListener(id = "health-it", stream = "${health.it.stream}", group = "health-it")
		void onEntry(String payload) {
		}

	}

}

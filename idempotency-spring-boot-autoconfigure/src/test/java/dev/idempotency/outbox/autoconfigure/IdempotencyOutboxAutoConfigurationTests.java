package dev.idempotency.outbox.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.idempotency.outbox.Outbox;
import dev.idempotency.outbox.OutboxAdmin;
import dev.idempotency.outbox.OutboxMessage;
import dev.idempotency.outbox.OutboxRelay;
import dev.idempotency.outbox.OutboxSender;
import dev.idempotency.outbox.OutboxStatus;
import dev.idempotency.outbox.jdbc.JdbcOutbox;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;
import dev.idempotency.outbox.jdbc.OutboxDialect;
import dev.idempotency.outbox.kafka.KafkaOutboxSender;
import dev.idempotency.outbox.redis.RedisStreamOutboxSender;
import dev.idempotency.support.IdempotencyPurgeJob;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Conditions of {@link IdempotencyOutboxAutoConfiguration}, and the outbox on H2 (the generic
 * dialect) as it auto-configures itself.
 */
class IdempotencyOutboxAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class,
				IdempotencyOutboxAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "idempotency.outbox.purge.interval=1h",
				"idempotency.outbox.relay.poll-interval=1h");

	private final ApplicationContextRunner enabled = this.contextRunner
		.withPropertyValues("idempotency.outbox.enabled=true");

	@Test
	void outboxIsOffUnlessEnabled() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(Outbox.class)
			.doesNotHaveBean(OutboxRelay.class)
			.doesNotHaveBean(IdempotencyOutboxDataSourceScriptDatabaseInitializer.class));
	}

	@Test
	void enabledOutboxHasItsApiRelayPurgeAndSchemaOnTheDataSource() {
		this.enabled.run((context) -> {
			assertThat(context).hasSingleBean(JdbcOutbox.class)
				.hasSingleBean(OutboxAdmin.class)
				.hasSingleBean(OutboxRelay.class)
				.hasSingleBean(IdempotencyPurgeJob.class)
				.hasSingleBean(IdempotencyOutboxDataSourceScriptDatabaseInitializer.class)
				.doesNotHaveBean(OutboxSender.class);
			assertThat(context.getBean(JdbcOutboxRepository.class).getDialect()).isEqualTo(OutboxDialect.GENERIC);
			assertThat(context.getBean(OutboxRelay.class).isRunning()).isTrue();
		});
	}

	@Test
	void publishedMessageIsSentByTheRelayThroughTheApplicationsSender() {
		List<OutboxMessage> sent = new CopyOnWriteArrayList<>();
		// Drained by hand below: no round started by the commit.
		this.enabled.withPropertyValues("idempotency.outbox.relay.wake-on-commit=false")
			.withBean(OutboxSender.class, () -> recordingSender(sent))
			.run((context) -> {
				Outbox outbox = context.getBean(Outbox.class);
				String messageId = new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
					.execute((status) -> outbox.publish("test:orders", "order-1", Map.of("orderId", "order-1"),
							Map.of("trace-id", "t-1")));
				context.getBean(OutboxRelay.class).drain();
				assertThat(sent).singleElement().satisfies((message) -> {
					assertThat(message.messageId()).isEqualTo(messageId);
					assertThat(message.key()).isEqualTo("order-1");
					assertThat(message.payload()).isEqualTo("{\"orderId\":\"order-1\"}");
					assertThat(message.headers()).containsEntry("trace-id", "t-1");
				});
				assertThat(context.getBean(JdbcOutboxRepository.class).find(messageId).status())
					.isEqualTo(OutboxStatus.SENT);
			});
	}

	@Test
	void commitStartsARelayRoundWithoutWaitingForThePoll() {
		List<OutboxMessage> sent = new CopyOnWriteArrayList<>();
		this.enabled.withBean(OutboxSender.class, () -> recordingSender(sent)).run((context) -> {
			String messageId = publishOne(context);
			// The poll interval is an hour: only the commit can have started the round.
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(sent).extracting(OutboxMessage::messageId).containsExactly(messageId));
		});
	}

	@Test
	void withoutWakeOnCommitTheMessageWaitsForThePoll() {
		List<OutboxMessage> sent = new CopyOnWriteArrayList<>();
		this.enabled.withPropertyValues("idempotency.outbox.relay.wake-on-commit=false")
			.withBean(OutboxSender.class, () -> recordingSender(sent))
			.run((context) -> {
				publishOne(context);
				Thread.sleep(1000);
				assertThat(sent).isEmpty();
			});
	}

	private static String publishOne(AssertableApplicationContext context) {
		Outbox outbox = context.getBean(Outbox.class);
		return new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
			.execute((status) -> outbox.publish("test:orders", "order-1", Map.of("orderId", "order-1")));
	}

	private static OutboxSender recordingSender(List<OutboxMessage> sent) {
		return new OutboxSender() {

			@Override
			public String scheme() {
				return "test";
			}

			@Override
			public CompletableFuture<?> send(String target, OutboxMessage message) {
				sent.add(message);
				return CompletableFuture.completedFuture(target);
			}

		};
	}

	@Test
	void writeOnlyInstanceHasNoRelayAndNoPurge() {
		this.enabled.withPropertyValues("idempotency.outbox.relay.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(Outbox.class)
				.doesNotHaveBean(OutboxRelay.class)
				.doesNotHaveBean(IdempotencyPurgeJob.class));
	}

	@Test
	void purgeCanBeSwitchedOff() {
		this.enabled.withPropertyValues("idempotency.outbox.purge.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(OutboxRelay.class)
				.doesNotHaveBean(IdempotencyPurgeJob.class));
	}

	@Test
	void schemaIsNotInitializedWhenToldNever() {
		this.enabled.withPropertyValues("idempotency.outbox.initialize-schema=never")
			.run((context) -> assertThat(context)
				.doesNotHaveBean(IdempotencyOutboxDataSourceScriptDatabaseInitializer.class));
	}

	@Test
	void applicationsOutboxWins() {
		Outbox own = (destination, key, payload, headers) -> "own";
		this.enabled.withBean(Outbox.class, () -> own)
			.run((context) -> assertThat(context).getBean(Outbox.class).isSameAs(own));
	}

	@Test
	void kafkaSenderWhenThereIsAKafkaTemplate() {
		this.enabled.withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class))
			.run((context) -> assertThat(context).hasSingleBean(KafkaOutboxSender.class)
				.doesNotHaveBean(RedisStreamOutboxSender.class));
	}

	@Test
	void redisSenderWhenThereIsARedisConnectionFactory() {
		this.enabled.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.run((context) -> assertThat(context).hasSingleBean(RedisStreamOutboxSender.class)
				.doesNotHaveBean(KafkaOutboxSender.class));
	}

	@Test
	void sendersBackOffWithoutTheirLibraries() {
		this.enabled.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(KafkaOperations.class, StringRedisTemplate.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(Outbox.class)
				.doesNotHaveBean(OutboxSender.class));
	}

	@Test
	void backsOffWithoutJackson() {
		this.enabled.withClassLoader(new FilteredClassLoader(JsonMapper.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(Outbox.class));
	}

	@Test
	void backsOffWithoutADataSource() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(IdempotencyOutboxAutoConfiguration.class))
			.withPropertyValues("idempotency.outbox.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(Outbox.class));
	}

	@Test
	void leaseNoLongerThanTheSendTimeoutIsRefused() {
		this.enabled.withPropertyValues("idempotency.outbox.relay.lease=5s", "idempotency.outbox.relay.send-timeout=5s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lease must be longer than sendTimeout"));
	}

	@Test
	void maxInFlightBatchesReachesTheRelayAndBelowOneIsRefused() {
		this.enabled.withPropertyValues("idempotency.outbox.relay.max-in-flight-batches=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("maxInFlightBatches must be at least 1"));
	}

}

package dev.idempotency.outbox.autoconfigure;

import java.time.Clock;
import java.util.List;
import java.util.Optional;

import javax.sql.DataSource;

import dev.idempotency.autoconfigure.IdempotencyPurgeProperties;
import dev.idempotency.core.FailureClassifier;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.InfrastructureFailureTypes;
import dev.idempotency.core.TraceContextCapture;
import dev.idempotency.outbox.Outbox;
import dev.idempotency.outbox.OutboxAdmin;
import dev.idempotency.outbox.OutboxListener;
import dev.idempotency.outbox.OutboxRelay;
import dev.idempotency.outbox.OutboxRepository;
import dev.idempotency.outbox.OutboxSender;
import dev.idempotency.outbox.jdbc.JdbcOutbox;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;
import dev.idempotency.outbox.jdbc.OutboxDialect;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.support.IdempotencyPurgeJob;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.init.DatabaseInitializationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.StringUtils;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.function.SingletonSupplier;

/**
 * The transactional outbox on the application's single {@code DataSource}, when
 * {@code idempotency.outbox.enabled} is {@code true}: the {@link Outbox} bean, its schema initializer,
 * the relay with a Kafka sender (when there is a {@code KafkaTemplate}), a Redis Stream sender
 * (when there is a {@code RedisConnectionFactory}) and a RabbitMQ sender (when there is a RabbitMQ
 * {@code ConnectionFactory}) and the purge of sent rows. Beans of the
 * application's own always win. Its meters are wired by
 * {@code metrics.IdempotencyOutboxMetricsAutoConfiguration}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		"org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
		"org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
		"org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration",
		"org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
		"org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
		"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration" })
@ConditionalOnClass({ JdbcTemplate.class, DatabaseInitializationProperties.class, JsonMapper.class })
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBooleanProperty("idempotency.outbox.enabled")
@EnableConfigurationProperties(IdempotencyOutboxProperties.class)
@Import({ OutboxKafkaSenderConfiguration.class, OutboxRedisSenderConfiguration.class,
		OutboxRabbitSenderConfiguration.class })
public final class IdempotencyOutboxAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	JdbcOutboxRepository outboxRepository(DataSource dataSource, IdempotencyOutboxProperties properties,
			ObjectProvider<JsonMapper> jsonMapper) {
		return new JdbcOutboxRepository(dataSource, dialect(dataSource, properties), properties.getTableName(),
				jsonMapper.getIfAvailable(JsonMapper::shared), Clock.systemUTC());
	}

	@Bean
	@ConditionalOnMissingBean(Outbox.class)
	JdbcOutbox outbox(JdbcOutboxRepository outboxRepository, ObjectProvider<JsonMapper> jsonMapper,
			IdempotencyOutboxProperties properties, ObjectProvider<OutboxRelay> relays,
			ObjectProvider<TraceContextCapture> traceContexts) {
		Runnable afterCommit = () -> {
		};
		if (properties.getRelay().isEnabled() && properties.getRelay().isWakeOnCommit()) {
			// Looked up once, at the first commit: the relay is created after the outbox.
			SingletonSupplier<Optional<OutboxRelay>> relay = SingletonSupplier
				.of(() -> Optional.ofNullable(relays.getIfAvailable()));
			afterCommit = () -> relay.obtain().ifPresent(OutboxRelay::wakeUp);
		}
		// Looked up at the first publish: the capture's tracer may be created after the outbox.
		SingletonSupplier<TraceContextCapture> traceContext = SingletonSupplier
			.of(() -> traceContexts.getIfUnique(() -> TraceContextCapture.NONE));
		return new JdbcOutbox(outboxRepository, jsonMapper.getIfAvailable(JsonMapper::shared), afterCommit,
				() -> traceContext.obtain().traceparent());
	}

	@Bean
	@ConditionalOnMissingBean
	OutboxAdmin outboxAdmin(OutboxRepository outboxRepository) {
		return new OutboxAdmin(outboxRepository);
	}

	@Bean
	@ConditionalOnMissingBean
	@Conditional(OnIdempotencyOutboxDatabaseInitializationCondition.class)
	IdempotencyOutboxDataSourceScriptDatabaseInitializer idempotencyOutboxDataSourceScriptDatabaseInitializer(
			DataSource dataSource, IdempotencyOutboxProperties properties) {
		return new IdempotencyOutboxDataSourceScriptDatabaseInitializer(dataSource, properties);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "idempotency.outbox.relay.enabled", matchIfMissing = true)
	OutboxRelay outboxRelay(OutboxRepository outboxRepository, IdempotencyOutboxProperties properties,
			ObjectProvider<OutboxSender> senders, ObjectProvider<OutboxListener> listeners,
			ObjectProvider<FailureClassifier> classifier, ObjectProvider<InfrastructureFailureTypes> technologies) {
		IdempotencyOutboxProperties.Relay relay = properties.getRelay();
		IdempotencyOutboxProperties.Retry retry = properties.getRetry();
		ExponentialBackOff backOff = new ExponentialBackOff(retry.getInitialInterval().toMillis(),
				retry.getMultiplier());
		backOff.setMaxInterval(retry.getMaxInterval().toMillis());
		backOff.setJitter(retry.getJitter().toMillis());
		OutboxRelay.Options options = new OutboxRelay.Options(relay.getPollInterval(), relay.getBatchSize(),
				relay.getLease(), relay.getSendTimeout(), retry.getMaxAttempts(), backOff,
				properties.isOrderedPerKey(), relay.getMaxInFlightBatches());
		return new OutboxRelay(outboxRepository, SingletonSupplier.of(() -> senders.orderedStream().toList()),
				options, Clock.systemUTC(), SingletonSupplier.of(() -> listeners.orderedStream().toList()),
				classifier.getIfAvailable(
						() -> new DefaultFailureClassifier(technologies.orderedStream().toList(), List.of(), List.of())));
	}

	@Bean
	@ConditionalOnBooleanProperty(name = { "idempotency.outbox.relay.enabled", "idempotency.outbox.purge.enabled" },
			matchIfMissing = true)
	IdempotencyPurgeJob idempotencyOutboxPurgeJob(OutboxRepository outboxRepository,
			IdempotencyOutboxProperties properties, ObjectProvider<IdempotencyListener> listeners) {
		IdempotencyPurgeProperties purge = properties.getPurge();
		return new IdempotencyPurgeJob("outbox", () -> outboxRepository.purgeSent(properties.getRetention(),
				purge.getBatchSize(), purge.getMaxBatchesPerRun()), purge.getInterval(),
				SingletonSupplier.of(() -> listeners.orderedStream().toList()));
	}

	private static OutboxDialect dialect(DataSource dataSource, IdempotencyOutboxProperties properties) {
		String platform = properties.getPlatform();
		if (StringUtils.hasText(platform) && !"all".equals(platform)) {
			return OutboxDialect.forPlatform(platform);
		}
		return OutboxDialect.detect(dataSource);
	}

}

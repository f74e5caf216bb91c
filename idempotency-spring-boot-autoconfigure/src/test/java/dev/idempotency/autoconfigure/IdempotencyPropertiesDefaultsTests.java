package dev.idempotency.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import com.jayway.jsonpath.JsonPath;
import dev.idempotency.kafka.autoconfigure.IdempotencyKafkaProperties;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxProperties;
import dev.idempotency.redis.stream.autoconfigure.IdempotencyRedisStreamProperties;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcProperties;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisProperties;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.core.Ordered;
import org.springframework.core.io.ClassPathResource;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins every default of {@link IdempotencyProperties}, {@link IdempotencyJdbcProperties},
 * {@link IdempotencyRedisProperties}, {@link IdempotencyRedisStreamProperties},
 * {@link IdempotencyOutboxProperties}, {@link IdempotencyFailClosedProperties} and the retention check of
 * {@link IdempotencyKafkaProperties}:
 * they live in the field initialisers and nowhere else.
 */
class IdempotencyPropertiesDefaultsTests {

	private final IdempotencyProperties properties = new IdempotencyProperties();

	private final IdempotencyJdbcProperties jdbc = new IdempotencyJdbcProperties();

	private final IdempotencyRedisProperties redis = new IdempotencyRedisProperties();

	private final IdempotencyRedisStreamProperties redisStream = new IdempotencyRedisStreamProperties();

	private final IdempotencyOutboxProperties outbox = new IdempotencyOutboxProperties();

	private final IdempotencyKafkaProperties kafka = new IdempotencyKafkaProperties();

	@Test
	void interceptionIsEnabled() {
		assertThat(this.properties.isEnabled()).isTrue();
	}

	@Test
	void retentionIsSevenDays() {
		assertThat(this.properties.getRetention()).isEqualTo(Duration.ofDays(7));
	}

	@Test
	void leaseIsFiveMinutes() {
		assertThat(this.properties.getLease()).isEqualTo(Duration.ofMinutes(5));
	}

	@Test
	void transactionTimeoutIsTheTransactionManagersDefault() {
		assertThat(this.properties.getTransactionTimeout()).isEqualTo(Duration.ZERO);
	}

	@Test
	void transactionManagerIsTheOnlyOrPrimaryOne() {
		assertThat(this.properties.getTransactionManager()).isNull();
	}

	@Test
	void transactionsOnAMySqlAutoCommitPoolBeginWithStartTransaction() {
		assertThat(this.properties.isStartTransaction()).isTrue();
	}

	@Test
	void advisorRunsJustOutsideTransactionalAdvice() {
		assertThat(this.properties.getAdvisorOrder()).isEqualTo(Ordered.LOWEST_PRECEDENCE - 10)
			.isEqualTo(IdempotencyProperties.DEFAULT_ADVISOR_ORDER);
	}

	@Test
	void noFingerprintByDefault() {
		assertThat(this.properties.getFingerprint()).isNull();
	}

	@Test
	void storedResultsAreAtMost64Kilobytes() {
		assertThat(this.properties.getStoredResult().getMaxSize()).isEqualTo(DataSize.ofKilobytes(64));
	}

	@Test
	void storeTypeIsDetected() {
		assertThat(this.properties.getStore().getType()).isNull();
	}

	@Test
	void metricsAreEnabled() {
		assertThat(this.properties.getMetrics().isEnabled()).isTrue();
	}

	@Test
	void jdbcTableIsIdempotencyRecord() {
		assertThat(this.jdbc.getTableName()).isEqualTo("idempotency_record");
	}

	@Test
	void jdbcSchemaIsInitializedOnlyForEmbeddedDatabases() {
		assertThat(this.jdbc.getInitializeSchema()).isEqualTo(DatabaseInitializationMode.EMBEDDED);
	}

	@Test
	void jdbcSchemaIsTheShippedScriptOfTheDetectedPlatform() {
		assertThat(this.jdbc.getSchema()).isEqualTo(IdempotencyJdbcProperties.DEFAULT_SCHEMA_LOCATION)
			.isEqualTo("classpath:dev/idempotency/store/jdbc/schema-@@platform@@.sql");
		assertThat(this.jdbc.getDefaultSchemaLocation()).isEqualTo(IdempotencyJdbcProperties.DEFAULT_SCHEMA_LOCATION);
		assertThat(this.jdbc.getPlatform()).isNull();
	}

	@Test
	void shippedSchemaScriptsExistForEveryDialect() {
		for (String platform : List.of("h2", "postgresql", "mysql", "mariadb")) {
			String location = IdempotencyJdbcProperties.DEFAULT_SCHEMA_LOCATION.replace("@@platform@@", platform)
				.substring("classpath:".length());
			assertThat(new ClassPathResource(location).exists()).as(location).isTrue();
		}
	}

	@Test
	void purgeIsEnabled() {
		assertThat(this.jdbc.getPurge().isEnabled()).isTrue();
	}

	@Test
	void purgeRunsEveryTenMinutes() {
		assertThat(this.jdbc.getPurge().getInterval()).isEqualTo(Duration.ofMinutes(10));
	}

	@Test
	void purgeDeletesAThousandRowsPerStatement() {
		assertThat(this.jdbc.getPurge().getBatchSize()).isEqualTo(1000);
	}

	@Test
	void purgeRunsAHundredStatementsAtMost() {
		assertThat(this.jdbc.getPurge().getMaxBatchesPerRun()).isEqualTo(100);
	}

	@Test
	void redisKeyPrefixIsIdempotencyColon() {
		assertThat(this.redis.getKeyPrefix()).isEqualTo("idempotency:");
	}

	@Test
	void continueOnErrorDefaultIsTheDocumentedOne() throws IOException {
		Object documented;
		try (InputStream json = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
			List<Object> defaults = JsonPath.parse(new String(json.readAllBytes(), StandardCharsets.UTF_8))
				.read("$.properties[?(@.name == 'idempotency.jdbc.continue-on-error')].defaultValue");
			documented = defaults.get(0);
		}
		assertThat(this.jdbc.isContinueOnError()).isEqualTo(documented);
	}

	@Test
	void outboxIsOptIn() {
		assertThat(this.outbox.isEnabled()).isFalse();
	}

	@Test
	void outboxTableIsIdempotencyOutbox() {
		assertThat(this.outbox.getTableName()).isEqualTo("idempotency_outbox");
	}

	@Test
	void outboxSchemaIsTheShippedScriptOfTheDetectedPlatformAndOnlyForEmbeddedDatabases() {
		assertThat(this.outbox.getSchema()).isEqualTo(IdempotencyOutboxProperties.DEFAULT_SCHEMA_LOCATION)
			.isEqualTo("classpath:dev/idempotency/outbox/schema-@@platform@@.sql");
		assertThat(this.outbox.getInitializeSchema()).isEqualTo(DatabaseInitializationMode.EMBEDDED);
		assertThat(this.outbox.isContinueOnError()).isFalse();
		assertThat(this.outbox.getPlatform()).isNull();
		for (String platform : List.of("h2", "postgresql", "mysql", "mariadb")) {
			String location = IdempotencyOutboxProperties.DEFAULT_SCHEMA_LOCATION.replace("@@platform@@", platform)
				.substring("classpath:".length());
			assertThat(new ClassPathResource(location).exists()).as(location).isTrue();
			assertThat(new ClassPathResource(location.replace("schema-", "schema-drop-")).exists()).as(location)
				.isTrue();
		}
	}

	@Test
	void outboxIsUnorderedAndKeepsSentRowsADay() {
		assertThat(this.outbox.isOrderedPerKey()).isFalse();
		assertThat(this.outbox.getRetention()).isEqualTo(Duration.ofDays(1));
	}

	@Test
	void outboxRelayPollsEveryHalfSecondInBatchesOfAHundred() {
		assertThat(this.outbox.getRelay().isEnabled()).isTrue();
		assertThat(this.outbox.getRelay().getPollInterval()).isEqualTo(Duration.ofMillis(500));
		assertThat(this.outbox.getRelay().isWakeOnCommit()).isTrue();
		assertThat(this.outbox.getRelay().getBatchSize()).isEqualTo(500);
		assertThat(this.outbox.getRelay().getMaxInFlightBatches()).isEqualTo(3);
	}

	@Test
	void outboxRelayLeasesForAMinuteAndWaitsTenSecondsForAcknowledgements() {
		assertThat(this.outbox.getRelay().getLease()).isEqualTo(Duration.ofMinutes(1));
		assertThat(this.outbox.getRelay().getSendTimeout()).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void outboxRetriesTenTimesWithExponentialBackOff() {
		IdempotencyOutboxProperties.Retry retry = this.outbox.getRetry();
		assertThat(retry.getMaxAttempts()).isEqualTo(10);
		assertThat(retry.getInitialInterval()).isEqualTo(Duration.ofSeconds(1));
		assertThat(retry.getMultiplier()).isEqualTo(2.0);
		assertThat(retry.getMaxInterval()).isEqualTo(Duration.ofMinutes(5));
		assertThat(retry.getJitter()).isEqualTo(Duration.ofMillis(500));
	}

	@Test
	void outboxPurgeDeletesAThousandRowsPerStatementEveryTenMinutes() {
		IdempotencyPurgeProperties purge = this.outbox.getPurge();
		assertThat(purge.isEnabled()).isTrue();
		assertThat(purge.getInterval()).isEqualTo(Duration.ofMinutes(10));
		assertThat(purge.getBatchSize()).isEqualTo(1000);
		assertThat(purge.getMaxBatchesPerRun()).isEqualTo(100);
	}

	@Test
	void bindingAnEmptyEnvironmentKeepsTheDefaults() {
		Binder binder = Binder.get(new MockEnvironment());
		IdempotencyProperties bound = binder.bindOrCreate("idempotency", IdempotencyProperties.class);
		assertThat(bound).usingRecursiveComparison().isEqualTo(new IdempotencyProperties());
		IdempotencyJdbcProperties boundJdbc = binder.bindOrCreate("idempotency.jdbc", IdempotencyJdbcProperties.class);
		assertThat(boundJdbc).usingRecursiveComparison().isEqualTo(new IdempotencyJdbcProperties());
		IdempotencyRedisProperties boundRedis = binder.bindOrCreate("idempotency.redis",
				IdempotencyRedisProperties.class);
		assertThat(boundRedis).usingRecursiveComparison().isEqualTo(new IdempotencyRedisProperties());
		IdempotencyOutboxProperties boundOutbox = binder.bindOrCreate("idempotency.outbox",
				IdempotencyOutboxProperties.class);
		assertThat(boundOutbox).usingRecursiveComparison().isEqualTo(new IdempotencyOutboxProperties());
	}

	@Test
	void bindingAnEmptyEnvironmentKeepsTheAdvisorOrder() {
		// The advisor binds its order by hand, early; it must see the same default.
		assertThat(Binder.get(new MockEnvironment())
			.bindOrCreate("idempotency", IdempotencyProperties.class)
			.getAdvisorOrder()).isEqualTo(IdempotencyProperties.DEFAULT_ADVISOR_ORDER);
	}

	@Test
	void redisStreamListenersAreEnabled() {
		assertThat(this.redisStream.isEnabled()).isTrue();
	}

	@Test
	void redisStreamListenersRunOneConsumerEach() {
		assertThat(this.redisStream.getConcurrency()).isEqualTo(1);
	}

	@Test
	void redisStreamReadsTenEntriesAtMostBlockingTwoSeconds() {
		assertThat(this.redisStream.getBatchSize()).isEqualTo(10);
		assertThat(this.redisStream.getPollTimeout()).isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void redisStreamClaimsEntriesIdleForAMinuteEveryThirtySeconds() {
		assertThat(this.redisStream.getMinIdle()).isEqualTo(Duration.ofMinutes(1));
		assertThat(this.redisStream.getClaimInterval()).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void redisStreamDeadLettersAfterThreeDeliveriesToTheDlqStream() {
		assertThat(this.redisStream.getMaxDeliveries()).isEqualTo(3);
		assertThat(this.redisStream.getDeadLetter().getSuffix()).isEqualTo(".dlq");
	}

	@Test
	void redisStreamRetriesAFailedReadAfterOneSecond() {
		assertThat(this.redisStream.getRecoveryBackOff()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void redisStreamPayloadIsThePayloadField() {
		assertThat(this.redisStream.getPayloadField()).isEqualTo("payload");
	}

	@Test
	void bindingAnEmptyEnvironmentKeepsTheRedisStreamDefaults() {
		assertThat(Binder.get(new MockEnvironment())
			.bindOrCreate("idempotency.redis.stream", IdempotencyRedisStreamProperties.class))
			.usingRecursiveComparison()
			.isEqualTo(new IdempotencyRedisStreamProperties());
	}

	@Test
	void kafkaRetentionCheckWarnsWithADayOfMarginAndWaitsFiveSecondsAtMost() {
		assertThat(this.kafka.getRetentionCheck()).isEqualTo(IdempotencyKafkaProperties.RetentionCheck.WARN);
		assertThat(this.kafka.getRetentionCheckMargin()).isEqualTo(Duration.ofDays(1));
		assertThat(this.kafka.getRetentionCheckTimeout()).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void kafkaTransactionBatchingIsOff() {
		assertThat(this.kafka.getTransactionBatching().isEnabled()).isFalse();
	}

	@Test
	void redisStreamTransactionBatchingIsOff() {
		assertThat(this.redisStream.getTransactionBatching().isEnabled()).isFalse();
	}

	@Test
	void bindingAnEmptyEnvironmentKeepsTheKafkaDefaults() {
		assertThat(Binder.get(new MockEnvironment()).bindOrCreate("idempotency.kafka", IdempotencyKafkaProperties.class))
			.usingRecursiveComparison()
			.isEqualTo(new IdempotencyKafkaProperties());
	}

	@Test
	void failClosedIsOnProbesEveryTwoSecondsAndBlocksAConsumerThirtySecondsAtMost() {
		IdempotencyFailClosedProperties failClosed = new IdempotencyFailClosedProperties();
		assertThat(failClosed.isEnabled()).isTrue();
		assertThat(failClosed.getProbeInterval()).isEqualTo(Duration.ofSeconds(2));
		assertThat(failClosed.getMaxWait()).isEqualTo(Duration.ofSeconds(30));
		assertThat(failClosed.getInfrastructureExceptions()).isEmpty();
		assertThat(failClosed.getMessageExceptions()).isEmpty();
	}

	@Test
	void failClosedExceptionTypesBindFromClassNames() {
		MockEnvironment environment = new MockEnvironment()
			.withProperty("idempotency.fail-closed.infrastructure-exceptions", "java.util.concurrent.TimeoutException")
			.withProperty("idempotency.fail-closed.message-exceptions[0]", "java.lang.IllegalArgumentException");
		IdempotencyFailClosedProperties bound = Binder.get(environment)
			.bindOrCreate("idempotency.fail-closed", IdempotencyFailClosedProperties.class);
		assertThat(bound.getInfrastructureExceptions()).containsExactly(java.util.concurrent.TimeoutException.class);
		assertThat(bound.getMessageExceptions()).containsExactly(IllegalArgumentException.class);
	}

}

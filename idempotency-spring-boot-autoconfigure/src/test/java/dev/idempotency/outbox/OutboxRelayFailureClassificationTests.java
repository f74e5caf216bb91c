package dev.idempotency.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.FailureClassifier;
import dev.idempotency.core.TraceContextCapture;
import dev.idempotency.outbox.jdbc.JdbcOutbox;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;
import dev.idempotency.outbox.jdbc.OutboxDialect;
import dev.idempotency.outbox.kafka.KafkaOutboxSender;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.testsupport.MutableClock;
import dev.idempotency.testsupport.TestDatabases;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.kafka.core.KafkaProducerException;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.backoff.ExponentialBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * The relay counts only the message's failures towards {@code DEAD}; the broker's and the
 * network's reschedule the row with a growing back-off and never count, on H2 with a clock the test
 * moves.
 */
class OutboxRelayFailureClassificationTests {

	private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));

	private final AtomicInteger sendFailed = new AtomicInteger();

	private final AtomicInteger dead = new AtomicInteger();

	private HikariDataSource dataSource;

	private JdbcOutboxRepository repository;

	private Outbox outbox;

	@BeforeEach
	void createTable() {
		this.dataSource = TestDatabases.h2();
		new ResourceDatabasePopulator(new ClassPathResource("dev/idempotency/outbox/schema-h2.sql"))
			.execute(this.dataSource);
		this.repository = new JdbcOutboxRepository(this.dataSource, OutboxDialect.detect(this.dataSource),
				"idempotency_outbox", JsonMapper.shared(), this.clock);
		this.outbox = new JdbcOutbox(this.repository, JsonMapper.shared(), () -> {
		}, TraceContextCapture.NONE);
	}

	@AfterEach
	void close() {
		this.dataSource.close();
	}

	@Test
	void messageFailureStillGoesDeadAfterMaxAttempts() {
		String id = publish("kafka:orders");
		OutboxRelay relay = relay(new FailingKafkaSender((message) -> new KafkaProducerException(null, "failed",
				new RecordTooLargeException("The message is 2000000 bytes"))));
		for (int round = 1; round <= 3; round++) {
			assertThat(relay.runOnce()).isOne();
			this.clock.advance(Duration.ofMinutes(10));
		}
		OutboxMessage row = this.repository.find(id);
		assertThat(row.status()).isEqualTo(OutboxStatus.DEAD);
		assertThat(row.attempts()).isEqualTo(3);
		assertThat(row.lastError()).contains("RecordTooLargeException");
		assertThat(this.dead.get()).isOne();
		assertThat(this.sendFailed.get()).isEqualTo(2);
	}

	@Test
	void brokerFailureNeverCountsAnAttemptAndBacksOffUpToTheMaximum() {
		String id = publish("kafka:orders");
		OutboxRelay relay = relay(new FailingKafkaSender((message) -> new KafkaProducerException(null, "failed",
				new TimeoutException("Expiring 1 record(s): 120000 ms has passed since batch creation"))));
		List<Long> delays = new ArrayList<>();
		for (int round = 1; round <= 20; round++) {
			assertThat(relay.runOnce()).isOne();
			OutboxMessage row = this.repository.find(id);
			assertThat(row.status()).isEqualTo(OutboxStatus.PENDING);
			assertThat(row.attempts()).isZero();
			Instant due = nextAttemptAt(id);
			delays.add(Duration.between(this.clock.instant(), due).toMillis());
			this.clock.advance(Duration.between(this.clock.instant(), due));
		}
		assertThat(this.dead.get()).isZero();
		assertThat(this.sendFailed.get()).as("listeners still told of every failed send").isEqualTo(20);
		assertThat(delays.subList(0, 4)).containsExactly(1000L, 2000L, 4000L, 8000L);
		assertThat(delays.subList(4, 20)).allMatch((delay) -> delay == 10_000L);
		assertThat(this.repository.find(id).lastError()).contains("Expiring 1 record(s)");
	}

	@Test
	void firstMessageThroughEndsTheOutageAndItsBackOff() {
		publish("kafka:orders");
		FailingKafkaSender sender = new FailingKafkaSender((message) -> new TimeoutException("not present in metadata"));
		OutboxRelay relay = relay(sender);
		for (int round = 1; round <= 3; round++) {
			relay.runOnce();
			this.clock.advance(Duration.ofMinutes(1));
		}
		sender.failure = null;
		assertThat(relay.runOnce()).isOne();
		String second = publish("kafka:orders");
		sender.failure = (message) -> new TimeoutException("not present in metadata");
		relay.runOnce();
		assertThat(Duration.between(this.clock.instant(), nextAttemptAt(second)).toMillis()).isEqualTo(1000L);
	}

	@Test
	void oneUnreachableDestinationIsTriedOncePerRound() {
		for (int i = 0; i < 5; i++) {
			publish("kafka:orders");
		}
		FailingKafkaSender sender = new FailingKafkaSender((message) -> new TimeoutException("not present in metadata"));
		OutboxRelay relay = relay(sender);
		assertThat(relay.runOnce()).isEqualTo(5);
		assertThat(sender.calls.get()).isOne();
		assertThat(this.sendFailed.get()).isEqualTo(5);
		assertThat(pendingRowsWithoutAttempts("PENDING")).isEqualTo(5);
	}

	@Test
	void sharedClassificationKeepsAnInfrastructureFailureFromCountingWhateverTheSenderSays() {
		String id = publish("kafka:orders");
		// The default OutboxSender#isMessageFailure calls every failure the message's.
		OutboxSender sender = new OutboxSender() {

			@Override
			public String scheme() {
				return "kafka";
			}

			@Override
			public CompletableFuture<?> send(String target, OutboxMessage message) {
				return CompletableFuture.failedFuture(new ApplicationGatewayDownException());
			}

		};
		OutboxRelay relay = relay(sender,
				new DefaultFailureClassifier(List.of(), List.of(ApplicationGatewayDownException.class), List.of()));
		for (int round = 1; round <= 5; round++) {
			assertThat(relay.runOnce()).isOne();
			this.clock.advance(Duration.ofMinutes(10));
		}
		OutboxMessage row = this.repository.find(id);
		assertThat(row.status()).isEqualTo(OutboxStatus.PENDING);
		assertThat(row.attempts()).isZero();
		assertThat(this.dead.get()).isZero();
		OutboxRelay unshared = relay(sender, new DefaultFailureClassifier());
		for (int round = 1; round <= 3; round++) {
			unshared.runOnce();
			this.clock.advance(Duration.ofMinutes(10));
		}
		assertThat(this.repository.find(id).status()).as("without the application's type it is the message's")
			.isEqualTo(OutboxStatus.DEAD);
	}

	private int pendingRowsWithoutAttempts(String status) {
		return new JdbcTemplate(this.dataSource)
			.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE status = ? AND attempts = 0", Integer.class,
					status);
	}

	private Instant nextAttemptAt(String messageId) {
		return new JdbcTemplate(this.dataSource).queryForObject(
				"SELECT next_attempt_at FROM idempotency_outbox WHERE message_id = ?",
				(rs, row) -> this.repository.getDialect().instant(rs, "next_attempt_at"), messageId);
	}

	private String publish(String destination) {
		return new TransactionTemplate(new DataSourceTransactionManager(this.dataSource))
			.execute((status) -> this.outbox.publish(destination, "k", "payload"));
	}

	private OutboxRelay relay(OutboxSender sender) {
		return relay(sender, new DefaultFailureClassifier());
	}

	private OutboxRelay relay(OutboxSender sender, FailureClassifier classifier) {
		ExponentialBackOff backOff = new ExponentialBackOff(1000, 2.0);
		backOff.setMaxInterval(10_000);
		backOff.setJitter(0);
		OutboxRelay.Options options = new OutboxRelay.Options(Duration.ofMillis(20), 10, Duration.ofMinutes(1),
				Duration.ofSeconds(5), 3, backOff, false, OutboxRelay.Options.DEFAULT_MAX_IN_FLIGHT_BATCHES);
		OutboxListener listener = new OutboxListener() {

			@Override
			public void onOutboxSendFailed(String destination, Throwable cause) {
				OutboxRelayFailureClassificationTests.this.sendFailed.incrementAndGet();
			}

			@Override
			public void onOutboxDead(String destination, String messageId, Throwable cause) {
				OutboxRelayFailureClassificationTests.this.dead.incrementAndGet();
			}

		};
		return new OutboxRelay(this.repository, () -> List.of(sender), options, this.clock, () -> List.of(listener),
				classifier);
	}

	static final class ApplicationGatewayDownException extends RuntimeException {

		private static final long serialVersionUID = 1L;

	}

	/** The real Kafka sender's classification, with sends that fail as told (or succeed when told nothing). */
	static final class FailingKafkaSender extends KafkaOutboxSender {

		volatile Function<OutboxMessage, RuntimeException> failure;

		final AtomicInteger calls = new AtomicInteger();

		FailingKafkaSender(Function<OutboxMessage, RuntimeException> failure) {
			super(mock(KafkaTemplate.class));
			this.failure = failure;
		}

		@Override
		public CompletableFuture<?> send(String topic, OutboxMessage message) {
			this.calls.incrementAndGet();
			Function<OutboxMessage, RuntimeException> failure = this.failure;
			return (failure != null) ? CompletableFuture.failedFuture(failure.apply(message))
					: CompletableFuture.completedFuture(null);
		}

	}

}

package dev.idempotency.integration;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.TraceContextCapture;
import dev.idempotency.outbox.OutboxAdmin;
import dev.idempotency.outbox.OutboxMessage;
import dev.idempotency.outbox.OutboxRelay;
import dev.idempotency.outbox.OutboxSender;
import dev.idempotency.outbox.jdbc.JdbcOutbox;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;
import dev.idempotency.outbox.jdbc.OutboxDialect;
import dev.idempotency.store.jdbc.JdbcIdempotencyDialect;
import dev.idempotency.store.jdbc.JdbcIdempotencyPurger;
import dev.idempotency.support.DefaultFailureClassifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every statement the starter runs outside the caller's transaction (the dedup purge, the outbox
 * relay's marks, re-drive, the outbox purge) commits, on a pool with auto-commit on (Hikari's
 * default) and off (common in applications tuned for JPA). Hikari rolls back whatever a connection
 * did not commit when it returns to the pool, so an uncommitted write is silently lost; every count
 * here is read through a second pool with auto-commit on, after the first pool's connections went
 * back.
 */
abstract class AbstractOutOfTransactionWritesIntegrationTests {

	private HikariDataSource dataSource;

	private HikariDataSource observer;

	protected abstract HikariDataSource createDataSource();

	protected abstract String platform();

	@AfterEach
	void closePools() {
		if (this.dataSource != null) {
			this.dataSource.close();
		}
		if (this.observer != null) {
			this.observer.close();
		}
	}

	@ParameterizedTest(name = "auto-commit {0}")
	@ValueSource(booleans = { true, false })
	void dedupPurgeDeletesExpiredRecordsForRealAndCountsOnlyWhatItCommitted(boolean autoCommit) {
		pools(autoCommit, "store");
		JdbcTemplate observe = new JdbcTemplate(this.observer);
		Timestamp past = Timestamp.from(Instant.now().minus(Duration.ofDays(2)));
		Timestamp future = Timestamp.from(Instant.now().plus(Duration.ofDays(2)));
		for (int i = 0; i < 25; i++) {
			observe.update("INSERT INTO idempotency_record (namespace, idempotency_key, status, created_at, expires_at) "
					+ "VALUES (?, ?, 'COMPLETED', ?, ?)", "ns", "expired-" + i, past, past);
		}
		for (int i = 0; i < 3; i++) {
			observe.update("INSERT INTO idempotency_record (namespace, idempotency_key, status, created_at, expires_at) "
					+ "VALUES (?, ?, 'COMPLETED', ?, ?)", "ns", "live-" + i, past, future);
		}
		JdbcIdempotencyPurger purger = new JdbcIdempotencyPurger(new JdbcTemplate(this.dataSource),
				JdbcIdempotencyDialect.detect(this.dataSource), "idempotency_record", Clock.systemUTC(), 10, 10);

		int purged = purger.purgeExpired();

		assertThat(count(observe, "SELECT COUNT(*) FROM idempotency_record")).as("rows left").isEqualTo(3);
		assertThat(purged).as("reported as purged").isEqualTo(25);
		assertThat(purger.purgeExpired()).isZero();
	}

	@ParameterizedTest(name = "auto-commit {0}")
	@ValueSource(booleans = { true, false })
	void relayMarksSentRetriedAndDeadRowsForReal(boolean autoCommit) {
		pools(autoCommit, "outbox");
		JdbcOutboxRepository repository = repository();
		JdbcOutbox outbox = new JdbcOutbox(repository, JsonMapper.shared(), () -> {
		}, TraceContextCapture.NONE);
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		String ok = transactions.execute((status) -> outbox.publish("test:ok", "k1", "p"));
		String retried = transactions.execute((status) -> outbox.publish("test:retry", "k2", "p"));
		String poisoned = transactions.execute((status) -> outbox.publish("test:poison", "k3", "p"));
		OutboxSender sender = new OutboxSender() {

			@Override
			public String scheme() {
				return "test";
			}

			@Override
			public CompletableFuture<?> send(String target, OutboxMessage message) {
				return switch (target) {
					case "ok" -> CompletableFuture.completedFuture(null);
					case "retry" -> CompletableFuture.failedFuture(new IllegalStateException("retry me (test)"));
					default -> CompletableFuture.failedFuture(new IllegalArgumentException("poison (test)"));
				};
			}

		};
		relay(repository, sender, 2).runOnce();
		JdbcTemplate observe = new JdbcTemplate(this.observer);
		assertThat(status(observe, ok)).isEqualTo("SENT");
		assertThat(status(observe, retried)).isEqualTo("PENDING");
		assertThat(count(observe, "SELECT attempts FROM idempotency_outbox WHERE message_id = '" + retried + "'"))
			.isOne();

		// Due again at once (the back-off is zero), and its second message failure is its last.
		await(() -> relay(repository, sender, 2).runOnce() > 0);
		assertThat(status(observe, retried)).isEqualTo("DEAD");
		assertThat(status(observe, poisoned)).isEqualTo("DEAD");
		assertThat(count(observe, "SELECT COUNT(*) FROM idempotency_outbox WHERE last_error IS NOT NULL")).isEqualTo(2);
	}

	@ParameterizedTest(name = "auto-commit {0}")
	@ValueSource(booleans = { true, false })
	void redriveAndOutboxPurgePersist(boolean autoCommit) {
		pools(autoCommit, "outbox");
		JdbcTemplate observe = new JdbcTemplate(this.observer);
		Timestamp old = Timestamp.from(Instant.now().minus(Duration.ofHours(3)));
		for (int i = 0; i < 7; i++) {
			insertRow(observe, "sent-" + i, "SENT", old);
		}
		for (int i = 0; i < 3; i++) {
			insertRow(observe, "dead-" + i, "DEAD", null);
		}
		JdbcOutboxRepository repository = repository();
		OutboxAdmin admin = new OutboxAdmin(repository);

		assertThat(admin.redrive("dead-0")).isTrue();
		assertThat(status(observe, "dead-0")).isEqualTo("PENDING");
		assertThat(admin.redriveDead()).isEqualTo(2);
		assertThat(count(observe, "SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'DEAD'")).isZero();
		assertThat(count(observe, "SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'PENDING' AND attempts = 0"))
			.isEqualTo(3);

		assertThat(repository.purgeSent(Duration.ofHours(1), 3, 10)).isEqualTo(7);
		assertThat(count(observe, "SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'SENT'")).isZero();
		assertThat(count(observe, "SELECT COUNT(*) FROM idempotency_outbox")).isEqualTo(3);
	}

	private void pools(boolean autoCommit, String schema) {
		this.observer = createDataSource();
		new ResourceDatabasePopulator(
				new ClassPathResource("dev/idempotency/" + path(schema) + "/schema-drop-" + platform() + ".sql"),
				new ClassPathResource("dev/idempotency/" + path(schema) + "/schema-" + platform() + ".sql"))
			.execute(this.observer);
		this.dataSource = createDataSource();
		this.dataSource.setAutoCommit(autoCommit);
		this.dataSource.setMaximumPoolSize(2);
	}

	private static String path(String schema) {
		return "store".equals(schema) ? "store/jdbc" : "outbox";
	}

	private JdbcOutboxRepository repository() {
		return new JdbcOutboxRepository(this.dataSource, OutboxDialect.detect(this.dataSource), "idempotency_outbox",
				JsonMapper.shared(), Clock.systemUTC());
	}

	private static OutboxRelay relay(JdbcOutboxRepository repository, OutboxSender sender, int maxAttempts) {
		OutboxRelay.Options options = new OutboxRelay.Options(Duration.ofMillis(20), 10, Duration.ofMinutes(1),
				Duration.ofSeconds(5), maxAttempts, new FixedBackOff(0, Long.MAX_VALUE), false,
				OutboxRelay.Options.DEFAULT_MAX_IN_FLIGHT_BATCHES);
		return new OutboxRelay(repository, () -> List.of(sender), options, Clock.systemUTC(), List::of,
				new DefaultFailureClassifier());
	}

	private static void insertRow(JdbcTemplate jdbc, String messageId, String status, Timestamp sentAt) {
		Timestamp now = Timestamp.from(Instant.now());
		jdbc.update("INSERT INTO idempotency_outbox (message_id, destination, message_key, payload, status, attempts, "
				+ "created_at, next_attempt_at, sent_at) VALUES (?, 'test:x', 'k', 'p', ?, 5, ?, ?, ?)", messageId, status,
				now, now, sentAt);
	}

	private static String status(JdbcTemplate jdbc, String messageId) {
		return jdbc.queryForObject("SELECT status FROM idempotency_outbox WHERE message_id = ?", String.class,
				messageId);
	}

	private static int count(JdbcTemplate jdbc, String sql) {
		Integer count = jdbc.queryForObject(sql, Integer.class);
		return (count != null) ? count : 0;
	}

	private static void await(Supplier<Boolean> condition) {
		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(condition::get);
	}

}

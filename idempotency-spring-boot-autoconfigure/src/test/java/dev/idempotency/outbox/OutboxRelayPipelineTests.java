package dev.idempotency.outbox;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.TraceContextCapture;
import dev.idempotency.outbox.jdbc.JdbcOutbox;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;
import dev.idempotency.outbox.jdbc.OutboxDialect;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.testsupport.MutableClock;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.backoff.ExponentialBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The overlapping relay on H2, with a clock the test moves: a row is sent only under its lease, so
 * a batch whose lease passed before its turn is left to whoever claims it next, and a row this relay
 * claims again while it is still in flight is not sent twice; with one batch in flight the next
 * claim waits for the previous marks; a failed claim or mark still lets the other batches in flight
 * be marked.
 */
class OutboxRelayPipelineTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));

	private HikariDataSource dataSource;

	private InterceptingOutboxRepository repository;

	private Outbox outbox;

	@BeforeEach
	void createTable() {
		this.dataSource = TestDatabases.h2();
		new ResourceDatabasePopulator(new ClassPathResource("dev/idempotency/outbox/schema-h2.sql"))
			.execute(this.dataSource);
		JdbcOutboxRepository jdbc = new JdbcOutboxRepository(this.dataSource, OutboxDialect.detect(this.dataSource),
				"idempotency_outbox", JsonMapper.shared(), this.clock);
		this.repository = new InterceptingOutboxRepository(jdbc);
		this.outbox = new JdbcOutbox(jdbc, JsonMapper.shared(), () -> {
		}, TraceContextCapture.NONE);
	}

	@AfterEach
	void close() {
		this.dataSource.close();
	}

	@Test
	void rowsWhoseLeasePassedAreNeitherSentLateNorSentAgainWhileStillInFlight() {
		for (int i = 0; i < 20; i++) {
			publish("m-" + i);
		}
		AtomicInteger claims = new AtomicInteger();
		// Both leases pass right after the second claim (a stalled relay thread): the second batch
		// must not be sent late, and the third claim, which gets the first batch's rows again while
		// they are still in flight, must not send them a second time.
		this.repository.setAfterClaim((claimed) -> {
			if (claims.incrementAndGet() == 2) {
				this.clock.advance(LEASE.plusSeconds(1));
			}
		});
		RecordingSender sender = new RecordingSender(this.clock);
		OutboxRelay relay = relay(sender, 3);

		assertThat(relay.drain()).as("claimed: 10, 10 (lease passed), the first 10 again, the second 10 again")
			.isEqualTo(40);
		assertThat(sender.sentUnderExpiredLease).isEmpty();
		assertThat(sender.sendsPerMessage).hasSize(20);
		assertThat(sender.sendsPerMessage.values()).allMatch((count) -> count.get() == 1);
		assertThat(new JdbcTemplate(this.dataSource).queryForObject(
				"SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'SENT'", Integer.class))
			.isEqualTo(20);
	}

	@Test
	void oneBatchInFlightClaimsTheNextOnlyOnceThePreviousIsMarked() {
		for (int i = 0; i < 20; i++) {
			publish("m-" + i);
		}
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		List<Integer> sentAtClaim = new CopyOnWriteArrayList<>();
		this.repository.setAfterClaim((claimed) -> sentAtClaim.add(
				jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'SENT'", Integer.class)));
		OutboxRelay relay = relay(new RecordingSender(this.clock), 1);
		assertThat(relay.drain()).isEqualTo(20);
		assertThat(sentAtClaim).containsExactly(0, 10, 20);

		for (int i = 0; i < 20; i++) {
			publish("n-" + i);
		}
		sentAtClaim.clear();
		assertThat(relay(new RecordingSender(this.clock), 2).drain()).isEqualTo(20);
		assertThat(sentAtClaim).as("the second batch claimed before the first was marked").containsExactly(20, 20, 30);
	}

	@Test
	void failedClaimStillMarksTheBatchInFlightAndLeavesItsOwnRowsLeased() {
		for (int i = 0; i < 20; i++) {
			publish("m-" + i);
		}
		// The second claim's outcome is lost on its way back (its rows are leased in the table).
		this.repository.setAfterClaim(connectionLostAtCall(2));
		RecordingSender sender = new RecordingSender(this.clock);
		OutboxRelay relay = relay(sender);
		assertThatExceptionOfType(DataAccessResourceFailureException.class).isThrownBy(relay::drain);
		assertThat(rows("status = 'SENT'")).as("the batch in flight was awaited and marked").isEqualTo(10);
		assertThat(rows("status = 'PENDING' AND claimed_until IS NOT NULL")).isEqualTo(10);
		assertThat(sender.sendsPerMessage).hasSize(10);
	}

	@Test
	void failedMarkStillMarksTheOtherBatchesInFlight() {
		for (int i = 0; i < 25; i++) {
			publish("m-" + i);
		}
		// Batches of 10, 10 and 5 in flight; the mark of the first does not commit.
		this.repository.setBeforeMarkSent(connectionLostAtCall(1));
		RecordingSender sender = new RecordingSender(this.clock);
		assertThatExceptionOfType(DataAccessResourceFailureException.class).isThrownBy(relay(sender, 3)::drain);
		assertThat(rows("status = 'SENT'")).as("the two batches behind the failed mark were still marked")
			.isEqualTo(15);
		assertThat(rows("status = 'PENDING' AND claimed_until IS NOT NULL")).isEqualTo(10);
		assertThat(sender.sendsPerMessage).hasSize(25);
	}

	@Test
	void eachBatchIsMarkedInTheTransactionThatClaimsTheNextOne() {
		for (int i = 0; i < 100; i++) {
			publish("m-" + i);
		}
		AtomicInteger commits = new AtomicInteger();
		JdbcOutboxRepository counted = new JdbcOutboxRepository(commitCounting(this.dataSource, commits),
				OutboxDialect.detect(this.dataSource), "idempotency_outbox", JsonMapper.shared(), this.clock);
		OutboxRelay.Options options = new OutboxRelay.Options(Duration.ofMillis(20), 10, LEASE, Duration.ofSeconds(5),
				3, new ExponentialBackOff(1000, 2.0), false, 3);
		RecordingSender sender = new RecordingSender(this.clock);
		OutboxRelay relay = new OutboxRelay(counted, () -> List.of(sender), options, this.clock, List::of,
				new DefaultFailureClassifier());

		assertThat(relay.drain()).isEqualTo(100);
		assertThat(new JdbcTemplate(this.dataSource).queryForObject(
				"SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'SENT'", Integer.class))
			.isEqualTo(100);
		assertThat(sender.sendsPerMessage.values()).hasSize(100).allMatch((count) -> count.get() == 1);
		// Ten batches, three in flight: three claims, then each mark with the next claim (the last of
		// them finding nothing), then the two marks left. One claim and one mark per batch were 21.
		assertThat(commits).hasValue(13);
	}

	@Test
	void batchWhoseMarkFailedWithTheNextClaimIsMarkedOnItsOwn() {
		for (int i = 0; i < 50; i++) {
			publish("m-" + i);
		}
		AtomicInteger claims = new AtomicInteger();
		AtomicInteger commits = new AtomicInteger();
		// The fourth claim (the first made with a mark) fails: its transaction, mark included, rolls back.
		DataSource failing = new DelegatingDataSource(commitCounting(this.dataSource, commits)) {

			@Override
			public Connection getConnection() throws SQLException {
				Connection connection = super.getConnection();
				return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
						new Class<?>[] { Connection.class }, (proxy, method, args) -> {
							if (method.getName().equals("prepareStatement") && ((String) args[0]).contains("FOR UPDATE")
									&& claims.incrementAndGet() == 4) {
								throw new SQLException("connection lost (test)");
							}
							try {
								return method.invoke(connection, args);
							}
							catch (InvocationTargetException ex) {
								throw ex.getTargetException();
							}
						});
			}

		};
		JdbcOutboxRepository repository = new JdbcOutboxRepository(failing, OutboxDialect.detect(this.dataSource),
				"idempotency_outbox", JsonMapper.shared(), this.clock);
		RecordingSender sender = new RecordingSender(this.clock);
		OutboxRelay relay = new OutboxRelay(repository, () -> List.of(sender),
				new OutboxRelay.Options(Duration.ofMillis(20), 10, LEASE, Duration.ofSeconds(5), 3,
						new ExponentialBackOff(1000, 2.0), false, 3),
				this.clock, List::of, new DefaultFailureClassifier());

		assertThatExceptionOfType(DataAccessException.class).isThrownBy(relay::drain);
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'SENT'", Integer.class))
			.as("the three batches in flight, the first marked on its own after the failed transaction")
			.isEqualTo(30);
		assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'PENDING' "
				+ "AND claimed_until IS NULL", Integer.class)).as("nothing of the failed claim kept").isEqualTo(20);
		assertThat(sender.sendsPerMessage).hasSize(30);
	}

	/** The data source with every commit of its connections counted. */
	private static DataSource commitCounting(DataSource target, AtomicInteger commits) {
		return new DelegatingDataSource(target) {

			@Override
			public Connection getConnection() throws SQLException {
				Connection connection = super.getConnection();
				return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
						new Class<?>[] { Connection.class }, (proxy, method, args) -> {
							if (method.getName().equals("commit")) {
								commits.incrementAndGet();
							}
							try {
								return method.invoke(connection, args);
							}
							catch (InvocationTargetException ex) {
								throw ex.getTargetException();
							}
						});
			}

		};
	}

	private void publish(String payload) {
		new TransactionTemplate(new DataSourceTransactionManager(this.dataSource))
			.executeWithoutResult((status) -> this.outbox.publish("kafka:orders", payload, payload));
	}

	/** A repository hook that loses the connection at its {@code n}th call (counting from 1). */
	private static Consumer<List<OutboxMessage>> connectionLostAtCall(int n) {
		AtomicInteger calls = new AtomicInteger();
		return (rows) -> {
			if (calls.incrementAndGet() == n) {
				throw new DataAccessResourceFailureException("connection lost (test)");
			}
		};
	}

	private int rows(String where) {
		return new JdbcTemplate(this.dataSource)
			.queryForObject("SELECT COUNT(*) FROM idempotency_outbox WHERE " + where, Integer.class);
	}

	private OutboxRelay relay(OutboxSender sender) {
		return relay(sender, OutboxRelay.Options.DEFAULT_MAX_IN_FLIGHT_BATCHES);
	}

	private OutboxRelay relay(OutboxSender sender, int maxInFlightBatches) {
		OutboxRelay.Options options = new OutboxRelay.Options(Duration.ofMillis(20), 10, LEASE, Duration.ofSeconds(5),
				3, new ExponentialBackOff(1000, 2.0), false, maxInFlightBatches);
		return new OutboxRelay(this.repository, () -> List.of(sender), options, this.clock, List::of,
				new DefaultFailureClassifier());
	}

	/** Acknowledges every message at once, counting sends and noting any made after the lease passed. */
	static final class RecordingSender implements OutboxSender {

		private final MutableClock clock;

		final Map<String, AtomicInteger> sendsPerMessage = new ConcurrentHashMap<>();

		final List<String> sentUnderExpiredLease = new CopyOnWriteArrayList<>();

		RecordingSender(MutableClock clock) {
			this.clock = clock;
		}

		@Override
		public String scheme() {
			return "kafka";
		}

		@Override
		public CompletableFuture<?> send(String target, OutboxMessage message) {
			this.sendsPerMessage.computeIfAbsent(message.messageId(), (id) -> new AtomicInteger()).incrementAndGet();
			if (!this.clock.instant().isBefore(message.claimedUntil())) {
				this.sentUnderExpiredLease.add(message.messageId());
			}
			return CompletableFuture.completedFuture(null);
		}

	}

}

package dev.idempotency.store.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyReconciler;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.core.UnfinishedClaim;
import dev.idempotency.testsupport.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link JdbcIdempotencyStore} as an {@code IdempotencyKeyInspector} on one database: it reads and
 * releases the records of both of its sides (transactional and leased), refuses to release a claim
 * whose lease has not ended unless forced, and finds digested keys by their original key.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcKeyInspectorTests {

	private static final String TABLE = "idempotency_record";

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final Duration RETENTION = Duration.ofDays(1);

	private static final String FINGERPRINT = "a".repeat(64);

	// Whole milliseconds: every database keeps them exactly.
	private final MutableClock clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));

	private HikariDataSource dataSource;

	private TransactionTemplate transactions;

	private JdbcIdempotencyStore store;

	private JdbcLeasedIdempotencyStore leased;

	/** A fresh pool on the database under test. */
	protected abstract HikariDataSource createDataSource();

	/** Spring Boot platform name of the schema scripts. */
	protected abstract String platform();

	@BeforeAll
	void connect() {
		this.dataSource = createDataSource();
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		JdbcIdempotencyDialect dialect = JdbcIdempotencyDialect.detect(this.dataSource);
		this.leased = new JdbcLeasedIdempotencyStore(this.dataSource, dialect, TABLE, this.clock, true, List.of());
		this.store = new JdbcIdempotencyStore(new JdbcTemplate(this.dataSource), dialect, TABLE, this.clock,
				this.leased);
	}

	@AfterAll
	void closeDataSource() {
		this.dataSource.close();
	}

	@BeforeEach
	void recreateTable() {
		new ResourceDatabasePopulator(
				new ClassPathResource("dev/idempotency/store/jdbc/schema-drop-" + platform() + ".sql"),
				new ClassPathResource("dev/idempotency/store/jdbc/schema-" + platform() + ".sql"))
			.execute(this.dataSource);
	}

	@Test
	void aKeyNeverClaimedIsNotFound() {
		IdempotencyKey key = key("absent");
		assertThat(this.store.inspect(key)).isNull();
		assertThat(this.store.release(key, false)).isEqualTo(KeyRelease.NOT_FOUND);
		assertThat(this.store.release(key, true)).isEqualTo(KeyRelease.NOT_FOUND);
	}

	@Test
	void aCommittedTransactionalKeyIsCompletedWithItsTimesAndDetailsPresence() {
		IdempotencyKey key = key("order-4711");
		Instant claimedAt = this.clock.instant();
		this.transactions.executeWithoutResult((status) -> {
			ClaimResult claim = this.store.claim(key, LEASE, RETENTION);
			this.store.recordFingerprint(key, claim, FINGERPRINT);
		});
		assertThat(this.store.inspect(key)).isEqualTo(new KeyRecord(key, KeyRecord.Status.COMPLETED, claimedAt,
				claimedAt.plus(RETENTION), false, null, 0, true, false, 0, null));
	}

	@Test
	void aTransactionalClaimIsInvisibleUntilItsTransactionCommits() {
		IdempotencyKey key = key("uncommitted");
		this.transactions.executeWithoutResult((status) -> {
			this.store.claim(key, LEASE, RETENTION);
			// Another connection, as an operator's lookup would use.
			assertThat(CompletableFuture.supplyAsync(() -> this.store.inspect(key)).join()).isNull();
		});
		assertThat(this.store.inspect(key)).isNotNull();
	}

	@Test
	void aReleasedCompletedKeyIsClaimedAgain() {
		IdempotencyKey key = key("redo");
		this.transactions.executeWithoutResult((status) -> this.store.claim(key, LEASE, RETENTION));
		assertThat(this.store.release(key, false)).isEqualTo(KeyRelease.RELEASED);
		assertThat(this.store.inspect(key)).isNull();
		Boolean claimedAgain = this.transactions
			.execute((status) -> this.store.claim(key, LEASE, RETENTION).isClaimed());
		assertThat(claimedAgain).isTrue();
	}

	@Test
	void aLeasedClaimInProgressIsShownWithItsLeaseAndIsNotReleasedUnlessForced() {
		IdempotencyKey key = key("payment-1");
		Instant claimedAt = this.clock.instant();
		ClaimResult claim = this.leased.claim(key, LEASE, RETENTION);
		this.leased.recordFingerprint(key, claim, FINGERPRINT);
		this.leased.recordResult(key, claim, "\"ok\"");
		KeyRecord inProgress = new KeyRecord(key, KeyRecord.Status.PROCESSING, claimedAt, claimedAt.plus(RETENTION),
				true, claimedAt.plus(LEASE), 1, true, true, 0, null);
		assertThat(this.store.inspect(key)).isEqualTo(inProgress);
		assertThat(inProgress.mayStillRun(this.clock.instant())).isTrue();
		assertThat(this.store.release(key, false)).isEqualTo(KeyRelease.REFUSED_IN_PROGRESS);
		assertThat(this.store.inspect(key)).isEqualTo(inProgress);
		assertThat(this.store.release(key, true)).isEqualTo(KeyRelease.RELEASED);
		assertThat(this.store.inspect(key)).isNull();
		// The run that held the claim finishes late: its completion changes nothing.
		this.leased.complete(key, claim, RETENTION);
		assertThat(this.store.inspect(key)).isNull();
	}

	@Test
	void aLeasedClaimWhoseLeaseEndedIsReleasedWithoutForce() {
		IdempotencyKey key = key("crashed");
		this.leased.claim(key, LEASE, RETENTION);
		this.clock.advance(LEASE.plusSeconds(1));
		assertThat(this.store.inspect(key)).satisfies((record) -> {
			assertThat(record.status()).isEqualTo(KeyRecord.Status.PROCESSING);
			assertThat(record.mayStillRun(this.clock.instant())).isFalse();
		});
		assertThat(this.store.release(key, false)).isEqualTo(KeyRelease.RELEASED);
		assertThat(this.store.inspect(key)).isNull();
	}

	@Test
	void aParkedKeyIsShownAsParkedAndReleased() {
		IdempotencyKey key = key("parked");
		this.leased.claim(key, LEASE, RETENTION);
		this.clock.advance(LEASE.plusSeconds(1));
		UnfinishedClaim unfinished = this.leased.takeOver(10, LEASE).get(0);
		assertThat(this.leased.settle(unfinished, IdempotencyReconciler.Verdict.MANUAL, RETENTION)).isTrue();
		assertThat(this.store.inspect(key)).satisfies((record) -> {
			assertThat(record.status()).isEqualTo(KeyRecord.Status.PARKED);
			assertThat(record.ownerTokenPresent()).isFalse();
			assertThat(record.leaseUntil()).isNull();
		});
		assertThat(this.store.release(key, false)).isEqualTo(KeyRelease.RELEASED);
		assertThat(this.leased.parked(null, 10)).isEmpty();
	}

	@Test
	void aLongKeyIsFoundAndReleasedByItsOriginalKey() {
		IdempotencyKey key = key("k".repeat(300));
		this.transactions.executeWithoutResult((status) -> this.store.claim(key, LEASE, RETENTION));
		IdempotencyKey stored = key.digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH);
		assertThat(stored).isNotEqualTo(key);
		assertThat(this.store.inspect(key)).extracting(KeyRecord::key).isEqualTo(stored);
		assertThat(this.store.release(key, false)).isEqualTo(KeyRelease.RELEASED);
		assertThat(this.store.inspect(key)).isNull();
	}

	private static IdempotencyKey key(String value) {
		return new IdempotencyKey("inspector-tests", value);
	}

}

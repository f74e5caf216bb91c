package dev.idempotency.store.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.StoreNotInTransactionException;
import dev.idempotency.store.AbstractIdempotencyStoreContractTests;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The store contract for {@link JdbcIdempotencyStore} on one database, plus the transactional
 * mode's own rules. The schema comes from the script the jar ships for the platform, unless a
 * subclass creates the table itself.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcIdempotencyStoreContractTests extends AbstractIdempotencyStoreContractTests {

	private HikariDataSource dataSource;

	private JdbcTemplate jdbc;

	private TransactionTemplate transactions;

	private JdbcIdempotencyStore store;

	/** A fresh pool on the database under test. */
	protected abstract HikariDataSource createDataSource();

	/** Spring Boot platform name of the schema script. */
	protected abstract String platform();

	protected abstract JdbcIdempotencyDialect expectedDialect();

	/**
	 * Creates the {@code idempotency_record} table, by default with the schema script the jar
	 * ships for {@link #platform()}, after dropping any table a previous run left.
	 * @param dataSource the database under test
	 */
	protected void createTable(DataSource dataSource) {
		new ResourceDatabasePopulator(
				new ClassPathResource("dev/idempotency/store/jdbc/schema-drop-" + platform() + ".sql"),
				new ClassPathResource("dev/idempotency/store/jdbc/schema-" + platform() + ".sql"))
			.execute(dataSource);
	}

	@BeforeAll
	void createSchema() {
		this.dataSource = createDataSource();
		createTable(this.dataSource);
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		this.store = new JdbcIdempotencyStore(this.jdbc, JdbcIdempotencyDialect.detect(this.dataSource),
				"idempotency_record", this.clock, null);
	}

	@AfterAll
	void closeDataSource() {
		this.dataSource.close();
	}

	@BeforeEach
	void emptyTable() {
		this.jdbc.update("DELETE FROM idempotency_record");
	}

	@Override
	protected IdempotencyStore store() {
		return this.store;
	}

	protected JdbcTemplate jdbc() {
		return this.jdbc;
	}

	protected TransactionTemplate transactions() {
		return this.transactions;
	}

	@Override
	protected ClaimResult claimAndSucceed(IdempotencyKey key, Duration retention) {
		return this.transactions.execute((status) -> this.store.claim(key, LEASE, retention));
	}

	@Override
	protected List<ClaimResult> claimAllAndSucceed(List<IdempotencyKey> keys) {
		return this.transactions.execute((status) -> this.store.claimAll(keys, LEASE, RETENTION));
	}

	@Override
	protected ClaimResult claimAndFail(IdempotencyKey key) {
		return this.transactions.execute((status) -> {
			ClaimResult claim = this.store.claim(key, LEASE, RETENTION);
			status.setRollbackOnly();
			return claim;
		});
	}

	@Override
	protected int purgeExpired() {
		return new JdbcIdempotencyPurger(this.jdbc, this.store.getDialect(), "idempotency_record", this.clock, 1000, 10)
			.purgeExpired();
	}

	@Test
	void expiredKeyInABatchIsClaimedAgain() {
		claimAndSucceed(key("batch-expired"), Duration.ofHours(1));
		this.clock.advance(Duration.ofHours(2));
		assertThat(claimAllAndSucceed(List.of(key("batch-expired"), key("batch-fresh"))))
			.extracting(ClaimResult::status)
			.containsExactly(Status.CLAIMED, Status.CLAIMED);
		assertThat(claimAndSucceed(key("batch-expired")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void batchTakesOverOnlyItsExpiredKeysInEveryNamespace() {
		IdempotencyKey expiredA = new IdempotencyKey("ns-a", "k-1");
		IdempotencyKey expiredB = new IdempotencyKey("ns-b", "k-1");
		IdempotencyKey liveA = new IdempotencyKey("ns-a", "k-2");
		claimAndSucceed(expiredA, Duration.ofHours(1));
		claimAndSucceed(expiredB, Duration.ofHours(1));
		claimAndSucceed(liveA, Duration.ofHours(3));
		this.clock.advance(Duration.ofHours(2));
		assertThat(claimAllAndSucceed(List.of(expiredA, liveA, new IdempotencyKey("ns-a", "k-3"), expiredB)))
			.extracting(ClaimResult::status)
			.containsExactly(Status.CLAIMED, Status.DUPLICATE, Status.CLAIMED, Status.CLAIMED);
		assertThat(claimAllAndSucceed(List.of(expiredA, expiredB, liveA))).extracting(ClaimResult::status)
			.containsOnly(Status.DUPLICATE);
	}

	@Test
	void batchRolledBackLeavesNoRecords() {
		this.transactions.executeWithoutResult((status) -> {
			this.store.claimAll(List.of(key("rb-1"), key("rb-2")), LEASE, RETENTION);
			status.setRollbackOnly();
		});
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_record", Integer.class)).isZero();
	}

	@Test
	void batchLargerThanOneStatementIsClaimedWhole() {
		List<IdempotencyKey> keys = new ArrayList<>();
		for (int i = 0; i < JdbcIdempotencyStore.MAX_ROWS_PER_STATEMENT + 5; i++) {
			keys.add(key("big-" + i));
		}
		assertThat(claimAllAndSucceed(keys)).allMatch(ClaimResult::isClaimed);
		assertThat(claimAllAndSucceed(keys)).noneMatch(ClaimResult::isClaimed);
	}

	@Test
	void concurrentBatchesSharingKeysClaimEachKeyOnceWithoutDeadlock() throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(4);
		try {
			for (int round = 0; round < 10; round++) {
				List<IdempotencyKey> forward = new ArrayList<>();
				for (int i = 0; i < 20; i++) {
					forward.add(key("shared-" + round + "-" + i));
				}
				List<IdempotencyKey> backward = new ArrayList<>(forward);
				Collections.reverse(backward);
				CyclicBarrier start = new CyclicBarrier(4);
				List<Future<List<ClaimResult>>> batches = new ArrayList<>();
				for (int t = 0; t < 4; t++) {
					List<IdempotencyKey> keys = (t % 2 == 0) ? forward : backward;
					batches.add(executor.submit(() -> {
						start.await(10, TimeUnit.SECONDS);
						return claimAllAndSucceed(keys);
					}));
				}
				Map<IdempotencyKey, Integer> granted = new HashMap<>();
				for (int t = 0; t < 4; t++) {
					List<IdempotencyKey> keys = (t % 2 == 0) ? forward : backward;
					List<ClaimResult> claims = batches.get(t).get(60, TimeUnit.SECONDS);
					for (int i = 0; i < keys.size(); i++) {
						granted.merge(keys.get(i), claims.get(i).isClaimed() ? 1 : 0, Integer::sum);
					}
				}
				assertThat(granted).hasSize(20).allSatisfy((key, count) -> assertThat(count).as("%s", key).isOne());
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * On MySQL and MariaDB, two takeovers of one expired record can deadlock (both hold the shared
	 * lock of {@code INSERT IGNORE} and want to delete): the database rolls one back, and its
	 * delivery is retried, as a broker would redeliver it. Either way exactly one claim is granted.
	 */
	@Test
	void concurrentClaimsOfAnExpiredKeyGrantExactlyOne() throws Exception {
		int threads = 8;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < 10; round++) {
				IdempotencyKey key = key("expired-race-" + round);
				claimAndSucceed(key, Duration.ofHours(1));
				this.clock.advance(Duration.ofHours(2));
				CyclicBarrier start = new CyclicBarrier(threads);
				List<Future<ClaimResult>> results = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					results.add(executor.submit(() -> {
						start.await(10, TimeUnit.SECONDS);
						return claimAndSucceedRetryingLockFailures(key);
					}));
				}
				int claimed = 0;
				for (Future<ClaimResult> result : results) {
					ClaimResult claim = result.get(60, TimeUnit.SECONDS);
					assertThat(claim.status()).isIn(Status.CLAIMED, Status.DUPLICATE);
					claimed += claim.isClaimed() ? 1 : 0;
				}
				assertThat(claimed).as("claims granted for expired %s", key).isOne();
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	private ClaimResult claimAndSucceedRetryingLockFailures(IdempotencyKey key) {
		for (int attempt = 1;; attempt++) {
			try {
				return claimAndSucceed(key);
			}
			catch (IdempotencyStoreException ex) {
				if (attempt == 5 || !(ex.getCause() instanceof PessimisticLockingFailureException)) {
					throw ex;
				}
			}
		}
	}

	@Test
	void completedKeysSinceATimeArePagedByPrimaryKey() {
		for (int i = 0; i < 7; i++) {
			claimAndSucceed(new IdempotencyKey("ns-" + (i % 2), "old-" + i), RETENTION);
		}
		this.clock.advance(Duration.ofHours(1));
		java.time.Instant since = this.clock.instant();
		List<IdempotencyKey> expected = new java.util.ArrayList<>();
		for (int i = 0; i < 11; i++) {
			IdempotencyKey key = new IdempotencyKey("ns-" + (i % 3), "k-" + i);
			claimAndSucceed(key, RETENTION);
			expected.add(key);
		}
		claimAndFail(new IdempotencyKey("ns-0", "rolled-back"));
		List<IdempotencyKey> streamed = new java.util.ArrayList<>();
		// Pages of 3: the last page is partial, and pages cross namespaces.
		long count = this.store.forEachCompletedSince(since, 3, streamed::add);
		assertThat(count).isEqualTo(11);
		assertThat(streamed).containsExactlyInAnyOrderElementsOf(expected).doesNotHaveDuplicates();
		assertThat(this.store.forEachCompletedSince(since.minus(Duration.ofDays(1)), 4, (key) -> {
		})).isEqualTo(18);
	}

	@Test
	void dialectIsDetectedFromTheDatabase() {
		assertThat(this.store.getDialect()).isEqualTo(expectedDialect());
	}

	@Test
	void claimOutsideATransactionIsRefused() {
		assertThatExceptionOfType(StoreNotInTransactionException.class)
			.isThrownBy(() -> this.store.claim(key("no-tx"), LEASE, RETENTION))
			.withMessageContaining("no transaction is active");
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_record", Integer.class)).isZero();
	}

	/**
	 * A Kafka-only transaction: synchronization and an "actual" transaction are active, but nothing
	 * binds the store's DataSource, so a claim would auto-commit on its own connection.
	 */
	@Test
	void claimInATransactionThatDoesNotEnlistTheDataSourceIsRefused() {
		TransactionTemplate foreign = new TransactionTemplate(new ResourcelessTransactionManager());
		assertThatExceptionOfType(StoreNotInTransactionException.class).isThrownBy(() -> foreign.executeWithoutResult(
				(status) -> this.store.claimAll(List.of(key("foreign-1"), key("foreign-2")), LEASE, RETENTION)))
			.withMessageContaining("takes no part in the current transaction");
		assertThatExceptionOfType(StoreNotInTransactionException.class)
			.isThrownBy(() -> foreign.executeWithoutResult((status) -> {
				// Earlier JDBC work binds the connection lazily, in auto-commit: still refused.
				this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_record", Integer.class);
				this.store.claim(key("foreign-3"), LEASE, RETENTION);
			}));
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_record", Integer.class)).isZero();
	}

	@Test
	void claimInTheTransactionOfAnotherDataSourceIsRefused() {
		try (HikariDataSource other = TestDatabases.h2()) {
			TransactionTemplate otherTransactions = new TransactionTemplate(new DataSourceTransactionManager(other));
			assertThatExceptionOfType(StoreNotInTransactionException.class)
				.isThrownBy(() -> otherTransactions
					.executeWithoutResult((status) -> this.store.claim(key("other-ds"), LEASE, RETENTION)));
		}
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_record", Integer.class)).isZero();
	}

	/** Stands in for a transaction manager of another resource, such as Kafka's. */
	private static final class ResourcelessTransactionManager extends AbstractPlatformTransactionManager {

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

	@Test
	void duplicateLeavesTheBusinessTransactionUsable() {
		claimAndSucceed(key("seen"));
		Integer rowsAfterDuplicate = this.transactions.execute((status) -> {
			assertThat(this.store.claim(key("seen"), LEASE, RETENTION).status()).isEqualTo(Status.DUPLICATE);
			// On PostgreSQL a caught unique violation would make every further statement fail.
			assertThat(this.store.claim(key("next"), LEASE, RETENTION).status()).isEqualTo(Status.CLAIMED);
			return this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_record", Integer.class);
		});
		assertThat(rowsAfterDuplicate).isEqualTo(2);
		assertThat(claimAndSucceed(key("next")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void claimOfAKeyInFlightWaitsAndIsADuplicateOnceTheFirstCommits() throws Exception {
		assertThat(claimWhileAnotherTransactionHoldsTheKey(key("in-flight-commit"), true)).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void claimOfAKeyInFlightWaitsAndIsGrantedOnceTheFirstRollsBack() throws Exception {
		assertThat(claimWhileAnotherTransactionHoldsTheKey(key("in-flight-rollback"), false)).isEqualTo(Status.CLAIMED);
	}

	private Status claimWhileAnotherTransactionHoldsTheKey(IdempotencyKey key, boolean commitFirst) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(2);
		try {
			CountDownLatch firstClaimed = new CountDownLatch(1);
			CountDownLatch secondStarted = new CountDownLatch(1);
			Future<Status> first = executor.submit(() -> this.transactions.execute((status) -> {
				Status claimed = this.store.claim(key, LEASE, RETENTION).status();
				firstClaimed.countDown();
				await(secondStarted);
				sleep(300);
				if (!commitFirst) {
					status.setRollbackOnly();
				}
				return claimed;
			}));
			assertThat(firstClaimed.await(10, TimeUnit.SECONDS)).isTrue();
			Future<Status> second = executor.submit(() -> this.transactions.execute((status) -> {
				secondStarted.countDown();
				return this.store.claim(key, LEASE, RETENTION).status();
			}));
			assertThat(first.get(20, TimeUnit.SECONDS)).isEqualTo(Status.CLAIMED);
			return second.get(20, TimeUnit.SECONDS);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void purgeDeletesInBoundedBatches() {
		for (int i = 0; i < 25; i++) {
			claimAndSucceed(key("batch-" + i), Duration.ofMinutes(1));
		}
		this.clock.advance(Duration.ofMinutes(2));
		JdbcIdempotencyPurger purger = new JdbcIdempotencyPurger(this.jdbc, this.store.getDialect(),
				"idempotency_record", this.clock, 10, 2);
		assertThat(purger.purgeExpired()).isEqualTo(20);
		assertThat(purger.purgeExpired()).isEqualTo(5);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_record", Integer.class)).isZero();
	}

	@Test
	void longKeysAreStoredAsSha256Digests() {
		claimAndSucceed(key("k".repeat(1_000)));
		String stored = this.jdbc.queryForObject("SELECT idempotency_key FROM idempotency_record", String.class);
		assertThat(stored).startsWith(IdempotencyKey.DIGEST_PREFIX).hasSize(71);
	}

	@Test
	void tableNameMustBeAPlainIdentifier() {
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> new JdbcIdempotencyStore(this.jdbc, expectedDialect(), "records; DROP TABLE x",
					this.clock, null));
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}

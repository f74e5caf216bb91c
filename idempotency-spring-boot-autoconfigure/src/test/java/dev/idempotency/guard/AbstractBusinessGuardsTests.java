package dev.idempotency.guard;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.support.jdbc.DatabasePlatform;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.JdbcUpdateAffectedIncorrectNumberOfRowsException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link BusinessGuards} on one database: every result of every operation, races of eight
 * deliveries of one message, and a transaction that continues after a duplicate. The tables are
 * the test's own, created and dropped here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractBusinessGuardsTests {

	private static final int THREADS = 8;

	private HikariDataSource dataSource;

	private JdbcTemplate jdbc;

	private TransactionTemplate transactions;

	private BusinessGuards guards;

	/** A fresh pool on the database under test. */
	protected abstract HikariDataSource createDataSource();

	protected abstract DatabasePlatform expectedPlatform();

	@BeforeAll
	void createTables() {
		this.dataSource = createDataSource();
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		dropTables();
		this.jdbc.execute("CREATE TABLE guard_orders (id VARCHAR(36) NOT NULL PRIMARY KEY, status VARCHAR(16),"
				+ " amount INT, note VARCHAR(40), version BIGINT)");
		this.jdbc.execute("CREATE TABLE guard_payments (merchant VARCHAR(20) NOT NULL, payment_id VARCHAR(40) NOT NULL,"
				+ " amount INT NOT NULL, note VARCHAR(8), PRIMARY KEY (merchant, payment_id))");
		this.jdbc.execute("CREATE TABLE guard_lines (order_id VARCHAR(36) NOT NULL, status VARCHAR(16))");
		this.guards = new BusinessGuards(this.jdbc);
	}

	@AfterAll
	void dropTablesAndClose() {
		dropTables();
		this.dataSource.close();
	}

	@BeforeEach
	void emptyTables() {
		this.jdbc.update("DELETE FROM guard_orders");
		this.jdbc.update("DELETE FROM guard_payments");
		this.jdbc.update("DELETE FROM guard_lines");
	}

	private void dropTables() {
		for (String table : List.of("guard_orders", "guard_payments", "guard_lines")) {
			this.jdbc.execute("DROP TABLE IF EXISTS " + table);
		}
	}

	@Test
	void detectsThePlatformOfTheDatabase() {
		assertThat(this.guards.platform()).isEqualTo(expectedPlatform());
	}

	// State transitions

	@Test
	void transitionFromTheSourceStatusIsApplied() {
		order("o-1", "PENDING", 0);
		Transition transition = inTransaction(
				() -> this.guards.transition("guard_orders", "id", "o-1", "status", "PENDING", "PAID"));
		assertThat(transition).isEqualTo(new Transition(Transition.Result.APPLIED, "PAID"));
		assertThat(status("o-1")).isEqualTo("PAID");
	}

	@Test
	void duplicateTransitionFindsTheRowAlreadyInTheTarget() {
		order("o-1", "PENDING", 0);
		inTransaction(() -> this.guards.transition("guard_orders", "id", "o-1", "status", "PENDING", "PAID"));
		Transition duplicate = inTransaction(
				() -> this.guards.transition("guard_orders", "id", "o-1", "status", "PENDING", "PAID"));
		assertThat(duplicate).isEqualTo(new Transition(Transition.Result.ALREADY_IN_TARGET, "PAID"));
	}

	@Test
	void transitionFromAnotherStatusIsAConflictCarryingIt() {
		order("o-1", "CANCELLED", 0);
		Transition transition = inTransaction(
				() -> this.guards.transition("guard_orders", "id", "o-1", "status", "PENDING", "PAID"));
		assertThat(transition).isEqualTo(new Transition(Transition.Result.CONFLICT, "CANCELLED"));
		assertThat(status("o-1")).isEqualTo("CANCELLED");
	}

	@Test
	void transitionOfANullStatusIsAConflictWithoutStatus() {
		order("o-1", null, 0);
		assertThat(this.guards.transition("guard_orders", "id", "o-1", "status", "PENDING", "PAID"))
			.isEqualTo(new Transition(Transition.Result.CONFLICT, null));
	}

	@Test
	void transitionOfAMissingRowIsNotFound() {
		assertThat(this.guards.transition("guard_orders", "id", "nope", "status", "PENDING", "PAID"))
			.isEqualTo(new Transition(Transition.Result.NOT_FOUND, null));
	}

	@Test
	void transitionFromAnyOfSeveralSourceStatuses() {
		order("o-1", "PENDING", 0);
		order("o-2", "AUTHORISED", 0);
		order("o-3", "REFUNDED", 0);
		Set<String> from = Set.of("PENDING", "AUTHORISED");
		assertThat(this.guards.transition("guard_orders", "id", "o-1", "status", from, "PAID").result())
			.isEqualTo(Transition.Result.APPLIED);
		assertThat(this.guards.transition("guard_orders", "id", "o-2", "status", from, "PAID").result())
			.isEqualTo(Transition.Result.APPLIED);
		assertThat(this.guards.transition("guard_orders", "id", "o-2", "status", from, "PAID"))
			.isEqualTo(new Transition(Transition.Result.ALREADY_IN_TARGET, "PAID"));
		assertThat(this.guards.transition("guard_orders", "id", "o-3", "status", from, "PAID"))
			.isEqualTo(new Transition(Transition.Result.CONFLICT, "REFUNDED"));
		assertThat(List.of(status("o-1"), status("o-2"), status("o-3"))).containsExactly("PAID", "PAID", "REFUNDED");
	}

	@Test
	void sourceStatusesContainingTheTargetAreRejected() {
		order("o-1", "PAID", 0);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.guards.transition("guard_orders", "id", "o-1", "status", "PAID", "PAID"));
		assertThatIllegalArgumentException().isThrownBy(() -> this.guards.transition("guard_orders", "id", "o-1",
				"status", Set.of("PENDING", "PAID"), "PAID"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.guards.transition("guard_orders", "id", "o-1", "status", Set.of(), "PAID"));
	}

	@Test
	void transitionOfSeveralRowsWithOneIdFailsTheTransaction() {
		this.jdbc.update("INSERT INTO guard_lines (order_id, status) VALUES ('o-1', 'OPEN'), ('o-1', 'OPEN')");
		assertThatExceptionOfType(JdbcUpdateAffectedIncorrectNumberOfRowsException.class).isThrownBy(() -> inTransaction(
				() -> this.guards.transition("guard_lines", "order_id", "o-1", "status", "OPEN", "CLOSED")));
		assertThat(this.jdbc.queryForList("SELECT status FROM guard_lines", String.class)).containsExactly("OPEN",
				"OPEN");
	}

	/**
	 * Every delivery reads the order first, as a listener loading its entity does, so that under
	 * MariaDB's {@code REPEATABLE READ} each holds a snapshot from before the winner's commit: the
	 * losers must still see the committed target, not their snapshot's source status.
	 */
	@Test
	void concurrentTransitionsOfOneRowApplyExactlyOnce() throws Exception {
		order("o-1", "PENDING", 0);
		CyclicBarrier allRead = new CyclicBarrier(THREADS);
		List<Transition> results = race((thread) -> {
			assertThat(status("o-1")).isEqualTo("PENDING");
			await(allRead);
			return this.guards.transition("guard_orders", "id", "o-1", "status", "PENDING", "PAID");
		});
		assertThat(count(results, Transition::result)).containsExactlyInAnyOrderEntriesOf(
				Map.of(Transition.Result.APPLIED, 1L, Transition.Result.ALREADY_IN_TARGET, (long) THREADS - 1));
		assertThat(results).extracting(Transition::currentStatus).containsOnly("PAID");
	}

	// Optimistic versions

	@Test
	void updateOfTheExpectedVersionIsAppliedAndIncrementsTheVersion() {
		order("o-1", "PENDING", 3);
		Map<String, Object> changes = new LinkedHashMap<>();
		changes.put("amount", 250);
		changes.put("note", null);
		VersionedUpdate update = inTransaction(
				() -> this.guards.updateIfVersion("guard_orders", "id", "o-1", "version", 3, changes));
		assertThat(update).isEqualTo(new VersionedUpdate(VersionedUpdate.Result.APPLIED, 4L));
		assertThat(this.jdbc.queryForMap("SELECT amount, note, version FROM guard_orders WHERE id = 'o-1'"))
			.extracting((row) -> ((Number) row(row, "amount")).intValue(), (row) -> row(row, "note"),
					(row) -> ((Number) row(row, "version")).longValue())
			.containsExactly(250, null, 4L);
	}

	@Test
	void duplicateUpdateIsStaleCarryingTheCurrentVersion() {
		order("o-1", "PENDING", 3);
		this.guards.updateIfVersion("guard_orders", "id", "o-1", "version", 3, Map.of("amount", 250));
		VersionedUpdate duplicate = inTransaction(
				() -> this.guards.updateIfVersion("guard_orders", "id", "o-1", "version", 3, Map.of("amount", 999)));
		assertThat(duplicate).isEqualTo(new VersionedUpdate(VersionedUpdate.Result.STALE, 4L));
		assertThat(this.jdbc.queryForObject("SELECT amount FROM guard_orders WHERE id = 'o-1'", Integer.class))
			.isEqualTo(250);
	}

	@Test
	void updateExpectingALaterVersionIsAheadAndChangesNothing() {
		order("o-1", "PENDING", 3);
		assertThat(this.guards.updateIfVersion("guard_orders", "id", "o-1", "version", 5, Map.of("amount", 999)))
			.isEqualTo(new VersionedUpdate(VersionedUpdate.Result.AHEAD, 3L));
		assertThat(this.jdbc.queryForObject("SELECT version FROM guard_orders WHERE id = 'o-1'", Long.class))
			.isEqualTo(3L);
	}

	@Test
	void updateOfAMissingRowIsNotFound() {
		assertThat(this.guards.updateIfVersion("guard_orders", "id", "nope", "version", 0, Map.of("amount", 1)))
			.isEqualTo(new VersionedUpdate(VersionedUpdate.Result.NOT_FOUND, null));
	}

	@Test
	void updateWithoutChangesIncrementsTheVersionOnly() {
		order("o-1", "PENDING", 0);
		assertThat(this.guards.updateIfVersion("guard_orders", "id", "o-1", "version", 0, Map.of()))
			.isEqualTo(new VersionedUpdate(VersionedUpdate.Result.APPLIED, 1L));
	}

	@Test
	void updateOfARowWithoutVersionFails() {
		this.jdbc.update("INSERT INTO guard_orders (id, status) VALUES ('o-1', 'PENDING')");
		assertThatIllegalStateException()
			.isThrownBy(() -> this.guards.updateIfVersion("guard_orders", "id", "o-1", "version", 0, Map.of()))
			.withMessageContaining("NULL");
	}

	@Test
	void changesOfTheIdOrVersionColumnAreRejected() {
		order("o-1", "PENDING", 0);
		assertThatIllegalArgumentException().isThrownBy(
				() -> this.guards.updateIfVersion("guard_orders", "id", "o-1", "version", 0, Map.of("version", 7)));
		assertThatIllegalArgumentException().isThrownBy(
				() -> this.guards.updateIfVersion("guard_orders", "id", "o-1", "version", 0, Map.of("ID", "o-2")));
		assertThat(this.jdbc.queryForObject("SELECT version FROM guard_orders WHERE id = 'o-1'", Long.class))
			.isEqualTo(0L);
	}

	@Test
	void concurrentUpdatesOfOneVersionApplyExactlyOnce() throws Exception {
		order("o-1", "PENDING", 0);
		CyclicBarrier allRead = new CyclicBarrier(THREADS);
		List<VersionedUpdate> results = race((thread) -> {
			assertThat(this.jdbc.queryForObject("SELECT version FROM guard_orders WHERE id = 'o-1'", Long.class))
				.isZero();
			await(allRead);
			return this.guards.updateIfVersion("guard_orders", "id", "o-1", "version", 0, Map.of("amount", thread));
		});
		assertThat(count(results, VersionedUpdate::result)).containsExactlyInAnyOrderEntriesOf(
				Map.of(VersionedUpdate.Result.APPLIED, 1L, VersionedUpdate.Result.STALE, (long) THREADS - 1));
		assertThat(results).extracting(VersionedUpdate::version).containsOnly(1L);
	}

	// Insert if absent

	@Test
	void insertOfANewKeyInsertsTheRow() {
		assertThat(inTransaction(() -> this.guards.insertIfAbsent("guard_payments", payment("m-1", "p-1", 100),
				List.of("merchant", "payment_id"))))
			.isTrue();
		assertThat(amount("m-1", "p-1")).isEqualTo(100);
	}

	@Test
	void insertOfAPresentKeyInsertsNothing() {
		this.guards.insertIfAbsent("guard_payments", payment("m-1", "p-1", 100), List.of("merchant", "payment_id"));
		assertThat(inTransaction(() -> this.guards.insertIfAbsent("guard_payments", payment("m-1", "p-1", 999),
				List.of("merchant", "payment_id"))))
			.isFalse();
		assertThat(amount("m-1", "p-1")).isEqualTo(100);
		assertThat(this.guards.insertIfAbsent("guard_payments", payment("m-2", "p-1", 200),
				List.of("merchant", "payment_id")))
			.as("same payment id, other merchant")
			.isTrue();
	}

	@Test
	void insertAcceptsNullValues() {
		Map<String, Object> row = payment("m-1", "p-1", 100);
		row.put("note", null);
		assertThat(this.guards.insertIfAbsent("guard_payments", row, List.of("merchant", "payment_id"))).isTrue();
	}

	/**
	 * The proof that no exception was swallowed: after a duplicate, the same transaction writes
	 * more and commits. A swallowed duplicate-key exception would have aborted a PostgreSQL
	 * transaction ("current transaction is aborted").
	 */
	@Test
	void transactionContinuesAfterADuplicate() {
		this.guards.insertIfAbsent("guard_payments", payment("m-1", "p-1", 100), List.of("merchant", "payment_id"));
		inTransaction(() -> {
			assertThat(this.guards.insertIfAbsent("guard_payments", payment("m-1", "p-1", 999),
					List.of("merchant", "payment_id")))
				.isFalse();
			assertThat(this.guards.insertIfAbsent("guard_payments", payment("m-1", "p-2", 200),
					List.of("merchant", "payment_id")))
				.isTrue();
			this.jdbc.update("UPDATE guard_payments SET note = 'seen' WHERE merchant = 'm-1' AND payment_id = 'p-1'");
			return null;
		});
		assertThat(amount("m-1", "p-1")).isEqualTo(100);
		assertThat(amount("m-1", "p-2")).isEqualTo(200);
		assertThat(this.jdbc.queryForObject(
				"SELECT note FROM guard_payments WHERE merchant = 'm-1' AND payment_id = 'p-1'", String.class))
			.isEqualTo("seen");
	}

	@Test
	void concurrentInsertsOfOneKeyInsertExactlyOnce() throws Exception {
		List<Boolean> results = race((thread) -> this.guards.insertIfAbsent("guard_payments",
				payment("m-1", "p-1", thread), List.of("merchant", "payment_id")));
		assertThat(results).containsOnlyOnce(true).hasSize(THREADS);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM guard_payments", Integer.class)).isOne();
		assertThat(amount("m-1", "p-1")).isEqualTo(results.indexOf(true));
	}

	/** A value that does not fit is an error, never a coerced row (MySQL's INSERT IGNORE would truncate it). */
	@Test
	void insertOfAValueThatDoesNotFitFailsAndStoresNothing() {
		Map<String, Object> row = payment("m-1", "p-1", 100);
		row.put("note", "far too long for eight characters");
		assertThatExceptionOfType(DataIntegrityViolationException.class).isThrownBy(() -> inTransaction(
				() -> this.guards.insertIfAbsent("guard_payments", row, List.of("merchant", "payment_id"))));
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM guard_payments", Integer.class)).isZero();
	}

	/** A {@code NULL} in a {@code NOT NULL} column is an error, never a default (MySQL's INSERT IGNORE stores 0). */
	@Test
	void insertOfANullIntoANotNullColumnFailsAndStoresNothing() {
		Map<String, Object> row = payment("m-1", "p-1", 100);
		row.put("amount", null);
		assertThatExceptionOfType(DataIntegrityViolationException.class).isThrownBy(() -> inTransaction(
				() -> this.guards.insertIfAbsent("guard_payments", row, List.of("merchant", "payment_id"))));
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM guard_payments", Integer.class)).isZero();
	}

	@Test
	void insertArgumentsAreChecked() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.guards.insertIfAbsent("guard_payments", Map.of(), List.of("merchant")));
		assertThatIllegalArgumentException().isThrownBy(
				() -> this.guards.insertIfAbsent("guard_payments", payment("m-1", "p-1", 1), List.of()));
		assertThatIllegalArgumentException().isThrownBy(
				() -> this.guards.insertIfAbsent("guard_payments", payment("m-1", "p-1", 1), List.of("reference")))
			.withMessageContaining("reference");
	}

	// Identifiers

	@Test
	void invalidIdentifiersAreRejectedBeforeAnySql() {
		order("o-1", "PENDING", 0);
		assertThatIllegalArgumentException().isThrownBy(() -> this.guards
			.transition("guard_orders; DROP TABLE guard_orders", "id", "o-1", "status", "PENDING", "PAID"));
		assertThatIllegalArgumentException().isThrownBy(
				() -> this.guards.transition("guard_orders", "id = id OR 1", "o-1", "status", "PENDING", "PAID"));
		assertThatIllegalArgumentException().isThrownBy(
				() -> this.guards.transition("guard_orders", "id", "o-1", "guard_orders.status", "PENDING", "PAID"))
			.withMessageContaining("Column name");
		assertThatIllegalArgumentException().isThrownBy(() -> this.guards.updateIfVersion("guard_orders", "id", "o-1",
				"version", 0, Map.of("amount = 0, note", 1)));
		assertThatIllegalArgumentException().isThrownBy(() -> this.guards.updateIfVersion("guard_orders", "id", "o-1",
				"version--", 0, Map.of("amount", 1)));
		assertThatIllegalArgumentException().isThrownBy(() -> this.guards.insertIfAbsent("guard_payments",
				Map.of("merchant", "m", "payment_id) SELECT 1 --", "p"), List.of("merchant")));
		assertThatIllegalArgumentException().isThrownBy(
				() -> this.guards.insertIfAbsent("1guard_payments", payment("m-1", "p-1", 1), List.of("merchant")));
		assertThat(status("o-1")).isEqualTo("PENDING");
	}

	@Test
	void schemaQualifiedTableIsAccepted() {
		order("o-1", "PENDING", 0);
		// MySQL and MariaDB call a schema a catalog.
		boolean mysql = expectedPlatform() == DatabasePlatform.MYSQL || expectedPlatform() == DatabasePlatform.MARIADB;
		String schema = this.jdbc.execute(
				(ConnectionCallback<String>) (Connection connection) -> mysql ? connection.getCatalog()
						: connection.getSchema());
		assertThat(this.guards.transition(schema + ".guard_orders", "id", "o-1", "status", "PENDING", "PAID").result())
			.isEqualTo(Transition.Result.APPLIED);
	}

	// Helpers

	private void order(String id, String status, long version) {
		this.jdbc.update("INSERT INTO guard_orders (id, status, amount, version) VALUES (?, ?, 0, ?)", id, status,
				version);
	}

	private String status(String id) {
		return this.jdbc.queryForObject("SELECT status FROM guard_orders WHERE id = ?", String.class, id);
	}

	private Integer amount(String merchant, String paymentId) {
		return this.jdbc.queryForObject("SELECT amount FROM guard_payments WHERE merchant = ? AND payment_id = ?",
				Integer.class, merchant, paymentId);
	}

	private static Map<String, Object> payment(String merchant, String paymentId, int amount) {
		Map<String, Object> row = new LinkedHashMap<>();
		row.put("merchant", merchant);
		row.put("payment_id", paymentId);
		row.put("amount", amount);
		return row;
	}

	/** A column of a {@code queryForMap} row, whatever case the database gives its label. */
	private static Object row(Map<String, Object> row, String column) {
		Map<String, Object> lowerCase = new HashMap<>();
		row.forEach((key, value) -> lowerCase.put(key.toLowerCase(Locale.ROOT), value));
		return lowerCase.get(column);
	}

	private <T> T inTransaction(Supplier<T> work) {
		return this.transactions.execute((status) -> work.get());
	}

	/**
	 * Runs {@code work} on {@link #THREADS} threads at once, each in a transaction of its own that
	 * stays open a little after the work, so that the others meet its uncommitted write.
	 */
	private <T> List<T> race(Function<Integer, T> work) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		try {
			CyclicBarrier start = new CyclicBarrier(THREADS);
			List<Future<T>> futures = new ArrayList<>();
			for (int thread = 0; thread < THREADS; thread++) {
				int index = thread;
				futures.add(executor.submit(() -> {
					await(start);
					return this.transactions.execute((status) -> {
						T result = work.apply(index);
						sleep(100);
						return result;
					});
				}));
			}
			List<T> results = new ArrayList<>();
			for (Future<T> future : futures) {
				results.add(future.get(60, TimeUnit.SECONDS));
			}
			return results;
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static <T, R> Map<R, Long> count(List<T> results, Function<T, R> by) {
		return results.stream().collect(Collectors.groupingBy(by, Collectors.counting()));
	}

	private static void await(CyclicBarrier barrier) {
		try {
			barrier.await(30, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}

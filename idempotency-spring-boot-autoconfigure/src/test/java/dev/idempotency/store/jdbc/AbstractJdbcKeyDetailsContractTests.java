package dev.idempotency.store.jdbc;

import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.store.AbstractKeyDetailsContractTests;
import dev.idempotency.testsupport.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key details contract for the JDBC stores on one database, on the table the shipped schema
 * script creates: {@link JdbcIdempotencyStore} records in the claim's transaction,
 * {@link JdbcLeasedIdempotencyStore} by token, in transactions of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcKeyDetailsContractTests {

	private static final String TABLE = "idempotency_record";

	private final MutableClock clock = new MutableClock(Instant.now());

	private HikariDataSource dataSource;

	private JdbcTemplate jdbc;

	private TransactionTemplate transactions;

	private JdbcIdempotencyDialect dialect;

	/** A fresh pool on the database under test. */
	protected abstract HikariDataSource createDataSource();

	/** Spring Boot platform name of the schema scripts. */
	protected abstract String platform();

	@BeforeAll
	void connect() {
		this.dataSource = createDataSource();
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		this.dialect = JdbcIdempotencyDialect.detect(this.dataSource);
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

	@Nested
	class Transactional extends AbstractKeyDetailsContractTests {

		private final JdbcIdempotencyStore store = new JdbcIdempotencyStore(AbstractJdbcKeyDetailsContractTests.this.jdbc,
				AbstractJdbcKeyDetailsContractTests.this.dialect, TABLE,
				AbstractJdbcKeyDetailsContractTests.this.clock, null);

		@Override
		protected IdempotencyStore store() {
			return this.store;
		}

		@Override
		protected <T> T inTransaction(Supplier<T> step) {
			return AbstractJdbcKeyDetailsContractTests.this.transactions.execute((status) -> step.get());
		}

		@Override
		protected void inRolledBackTransaction(Runnable step) {
			AbstractJdbcKeyDetailsContractTests.this.transactions.executeWithoutResult((status) -> {
				step.run();
				status.setRollbackOnly();
			});
		}

		@Test
		void detailsAreStoredInTheRecordsColumnsUnderTheDigestedKey() {
			IdempotencyKey key = key("d".repeat(300));
			process(key, FINGERPRINT_A, "\"r\"");
			IdempotencyKey stored = key.digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH);
			assertThat(AbstractJdbcKeyDetailsContractTests.this.jdbc.queryForList(
					"SELECT fingerprint, result_body FROM " + TABLE + " WHERE namespace = ? AND idempotency_key = ?",
					stored.namespace(), stored.value()))
				.singleElement()
				.satisfies((row) -> {
					assertThat(row.values()).containsExactly(FINGERPRINT_A, "\"r\"");
				});
		}

		@Test
		void aFingerprintClearsTheResultOfARecordTakenOver() {
			IdempotencyKey key = key("taken-over");
			process(key, FINGERPRINT_A, "\"old\"");
			AbstractJdbcKeyDetailsContractTests.this.clock.advance(RETENTION.plusSeconds(1));
			assertThat(process(key, FINGERPRINT_B, null).isClaimed()).isTrue();
			assertThat(recorded(key)).isEqualTo(new RecordedKey(FINGERPRINT_B, null));
		}

	}

	@Nested
	class Leased extends AbstractKeyDetailsContractTests {

		private final JdbcLeasedIdempotencyStore store = new JdbcLeasedIdempotencyStore(
				AbstractJdbcKeyDetailsContractTests.this.dataSource, AbstractJdbcKeyDetailsContractTests.this.dialect,
				TABLE, AbstractJdbcKeyDetailsContractTests.this.clock, true, List.of());

		@Override
		protected IdempotencyStore store() {
			return this.store;
		}

		@Test
		void aClaimTakenOverCannotRecordAnyMore() {
			IdempotencyKey key = key("lost-lease");
			ClaimResult first = this.store.claim(key, LEASE, RETENTION);
			AbstractJdbcKeyDetailsContractTests.this.clock.advance(LEASE.plusSeconds(1));
			ClaimResult second = this.store.claim(key, LEASE, RETENTION);
			assertThat(second.isClaimed()).isTrue();
			this.store.recordFingerprint(key, second, FINGERPRINT_B);
			this.store.recordFingerprint(key, first, FINGERPRINT_A);
			this.store.recordResult(key, first, "\"late\"");
			this.store.complete(key, second, RETENTION);
			assertThat(recorded(key)).isEqualTo(new RecordedKey(FINGERPRINT_B, null));
		}

	}

}

package dev.idempotency.support;

import java.time.Clock;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.store.jdbc.JdbcIdempotencyDialect;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.support.jdbc.StartTransactionDataSource;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which transaction manager the interceptor gets for a store on MariaDB: a copy of Spring's JDBC
 * manager that begins with {@code START TRANSACTION}, with the application's settings, and the
 * application's own manager in every other case. A store of one's own, which does not say its
 * platform as the JDBC store does, has it read from its {@code DataSource}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionManagerSelectorMariaDbIntegrationTests {

	private final HikariDataSource dataSource = TestDatabases.mariaDb();

	private final JdbcIdempotencyStore store = new JdbcIdempotencyStore(new JdbcTemplate(this.dataSource),
			JdbcIdempotencyDialect.MARIADB, "idempotency_record", Clock.systemUTC(), null);

	@AfterAll
	void close() {
		this.dataSource.close();
	}

	@Test
	void jdbcTransactionManagerIsCopiedWithItsSettingsForTheInterceptorsTransactions() {
		JdbcTransactionManager application = new JdbcTransactionManager(this.dataSource);
		application.setDefaultTimeout(7);
		application.setRollbackOnCommitFailure(true);
		application.setNestedTransactionAllowed(false);

		PlatformTransactionManager chosen = selector(application, true).resolve(this.store);

		assertThat(chosen).isNotSameAs(application).isExactlyInstanceOf(JdbcTransactionManager.class);
		JdbcTransactionManager copy = (JdbcTransactionManager) chosen;
		assertThat(copy.getDataSource()).isInstanceOf(StartTransactionDataSource.class);
		assertThat(copy.getDefaultTimeout()).isEqualTo(7);
		assertThat(copy.isRollbackOnCommitFailure()).isTrue();
		assertThat(copy.isNestedTransactionAllowed()).isFalse();
		assertThat(TransactionManagerSelector.manages(copy, this.dataSource)).isTrue();
		assertThat(application.getDataSource()).isSameAs(this.dataSource);
	}

	@Test
	void aSubclassOfTheJdbcTransactionManagerIsLeftAlone() {
		JdbcTransactionManager application = new JdbcTransactionManager(this.dataSource) {
		};
		assertThat(selector(application, true).resolve(this.store)).isSameAs(application);
	}

	@Test
	void withStartTransactionOffTheApplicationsManagerIsUsed() {
		JdbcTransactionManager application = new JdbcTransactionManager(this.dataSource);
		assertThat(selector(application, false).resolve(this.store)).isSameAs(application);
	}

	@Test
	void aStoreThatDoesNotKnowItsPlatformHasItReadFromItsDataSource() {
		JdbcTransactionManager application = new JdbcTransactionManager(this.dataSource);
		IdempotencyStore own = new IdempotencyStore() {

			@Override
			public ClaimResult claim(IdempotencyKey key, Duration lease, Duration retention) {
				return TransactionManagerSelectorMariaDbIntegrationTests.this.store.claim(key, lease, retention);
			}

			@Override
			public boolean isTransactional() {
				return true;
			}

			@Override
			public Object transactionalResource() {
				return TransactionManagerSelectorMariaDbIntegrationTests.this.dataSource;
			}

			@Override
			public String name() {
				return "own";
			}

		};

		PlatformTransactionManager chosen = selector(application, true).resolve(own);

		assertThat(chosen).isNotSameAs(application).isExactlyInstanceOf(JdbcTransactionManager.class);
		assertThat(((JdbcTransactionManager) chosen).getDataSource()).isInstanceOf(StartTransactionDataSource.class);
	}

	private static TransactionManagerSelector selector(PlatformTransactionManager transactionManager,
			boolean startTransaction) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerSingleton("transactionManager", transactionManager);
		return new TransactionManagerSelector(beanFactory, null, startTransaction);
	}

}

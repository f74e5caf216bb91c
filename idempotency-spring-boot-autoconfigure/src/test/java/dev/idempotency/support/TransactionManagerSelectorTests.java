package dev.idempotency.support;

import java.time.Clock;

import javax.sql.DataSource;

import dev.idempotency.store.jdbc.JdbcIdempotencyDialect;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.support.jdbc.StartTransactionDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verifyNoInteractions;

/**
 * How the selector learns the database platform of a JDBC store: from the store's dialect, which
 * detected it once at start-up, never from a connection of its own.
 */
class TransactionManagerSelectorTests {

	private final DataSource dataSource = mock(DataSource.class);

	private final JdbcTransactionManager application = new JdbcTransactionManager(this.dataSource);

	@Test
	void aMariaDbStoreGetsTheStartTransactionCopyWithoutAConnection() {
		PlatformTransactionManager chosen = selector().resolve(store(JdbcIdempotencyDialect.MARIADB));

		assertThat(chosen).isExactlyInstanceOf(JdbcTransactionManager.class).isNotSameAs(this.application);
		assertThat(((JdbcTransactionManager) chosen).getDataSource()).isInstanceOf(StartTransactionDataSource.class);
		verifyNoInteractions(this.dataSource);
	}

	@Test
	void aStoreOnAnotherPlatformKeepsTheApplicationsManagerWithoutAConnection() {
		PlatformTransactionManager chosen = selector().resolve(store(JdbcIdempotencyDialect.POSTGRESQL));

		assertThat(chosen).isSameAs(this.application);
		verifyNoInteractions(this.dataSource);
	}

	private JdbcIdempotencyStore store(JdbcIdempotencyDialect dialect) {
		return new JdbcIdempotencyStore(new JdbcTemplate(this.dataSource), dialect, "idempotency_record",
				Clock.systemUTC(), null);
	}

	private TransactionManagerSelector selector() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerSingleton("transactionManager", this.application);
		return new TransactionManagerSelector(beanFactory, null, true);
	}

}

package dev.idempotency.support.jdbc;

import java.util.function.Supplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Builds, for the transactions the {@code @Idempotent} interceptor opens on a MySQL or MariaDB
 * {@code DataSource}, a copy of the application's JDBC transaction manager over a
 * {@link StartTransactionDataSource}: the same settings, the same bound resource (so everything the
 * method does on the {@code DataSource} joins), but a transaction that begins with
 * {@code START TRANSACTION} instead of switching the pool's auto-commit off and on. The
 * application's own transactions keep its manager and are not changed.
 *
 * @since 0.2.0
 */
public final class StartTransactionManagers {

	private StartTransactionManagers() {
	}

	/**
	 * Returns the manager for the interceptor's own transactions on {@code dataSource}.
	 * @param chosen the transaction manager chosen for the store
	 * @param dataSource the store's {@code DataSource}
	 * @param platform the database platform of {@code dataSource}, asked only if {@code chosen} is
	 * one that can be copied
	 * @return a copy of {@code chosen} that begins with {@code START TRANSACTION}, or {@code null}
	 * unless {@code chosen} is exactly Spring's {@code DataSourceTransactionManager} or
	 * {@code JdbcTransactionManager} over {@code dataSource} (a subclass may change how a
	 * transaction begins, and is left alone) and the platform is MySQL or MariaDB
	 */
	public static @Nullable PlatformTransactionManager forInterceptor(PlatformTransactionManager chosen,
			DataSource dataSource, Supplier<DatabasePlatform> platform) {
		if (chosen.getClass() != DataSourceTransactionManager.class && chosen.getClass() != JdbcTransactionManager.class) {
			return null;
		}
		DataSourceTransactionManager original = (DataSourceTransactionManager) chosen;
		if (original.getDataSource() != dataSource) {
			return null;
		}
		DatabasePlatform detected = platform.get();
		if (detected != DatabasePlatform.MYSQL && detected != DatabasePlatform.MARIADB) {
			return null;
		}
		DataSourceTransactionManager copy;
		StartTransactionDataSource wrapped = new StartTransactionDataSource(dataSource);
		if (original instanceof JdbcTransactionManager jdbc) {
			JdbcTransactionManager jdbcCopy = new JdbcTransactionManager(wrapped);
			jdbcCopy.setLazyInit(jdbc.isLazyInit());
			jdbcCopy.setExceptionTranslator(jdbc.getExceptionTranslator());
			copy = jdbcCopy;
		}
		else {
			copy = new DataSourceTransactionManager(wrapped);
		}
		copy.setEnforceReadOnly(original.isEnforceReadOnly());
		copy.setDefaultTimeout(original.getDefaultTimeout());
		copy.setNestedTransactionAllowed(original.isNestedTransactionAllowed());
		copy.setValidateExistingTransaction(original.isValidateExistingTransaction());
		copy.setGlobalRollbackOnParticipationFailure(original.isGlobalRollbackOnParticipationFailure());
		copy.setFailEarlyOnGlobalRollbackOnly(original.isFailEarlyOnGlobalRollbackOnly());
		copy.setRollbackOnCommitFailure(original.isRollbackOnCommitFailure());
		copy.setTransactionSynchronization(original.getTransactionSynchronization());
		copy.setTransactionExecutionListeners(original.getTransactionExecutionListeners());
		return copy;
	}

}

package dev.idempotency.store.jdbc.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.support.IdempotencyTransactionManagerResolver;
import dev.idempotency.support.jdbc.DatabasePlatform;
import dev.idempotency.support.jdbc.StartTransactionDataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Logs once at start-up, on MySQL and MariaDB, what the JDBC store's pool costs per message when its
 * connections are in auto-commit mode (Spring Boot's default) or run at REPEATABLE READ (the
 * server's default): whether {@code @Idempotent} transactions begin with {@code START TRANSACTION}
 * or switch auto-commit off and on, and the settings that change it. Nothing is changed here.
 */
final class MySqlConnectionAdvisory implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(MySqlConnectionAdvisory.class);

	private final JdbcIdempotencyStore store;

	private final ObjectProvider<IdempotencyTransactionManagerResolver> transactionManagers;

	MySqlConnectionAdvisory(JdbcIdempotencyStore store,
			ObjectProvider<IdempotencyTransactionManagerResolver> transactionManagers) {
		this.store = store;
		this.transactionManagers = transactionManagers;
	}

	@Override
	public void afterSingletonsInstantiated() {
		DatabasePlatform platform = this.store.getDialect().platform();
		if (platform != DatabasePlatform.MYSQL && platform != DatabasePlatform.MARIADB) {
			return;
		}
		DataSource dataSource = this.store.transactionalResource();
		boolean autoCommit;
		int isolation;
		try (Connection connection = dataSource.getConnection()) {
			autoCommit = connection.getAutoCommit();
			isolation = connection.getTransactionIsolation();
		}
		catch (SQLException ex) {
			logger.debug("Could not read the JDBC idempotency store's connection settings", ex);
			return;
		}
		String database = (platform == DatabasePlatform.MARIADB) ? "MariaDB" : "MySQL";
		if (autoCommit) {
			if (beginsWithStartTransaction()) {
				logger.info("The JDBC idempotency store's " + database + " connections are in auto-commit mode "
						+ "(Spring Boot's default): @Idempotent transactions begin with START TRANSACTION and leave "
						+ "auto-commit on. The application's other Spring-managed transactions on this DataSource "
						+ "switch auto-commit off and back on, two more round trips each with MariaDB Connector/J; "
						+ "spring.datasource.hikari.auto-commit=false removes them for all of them");
			}
			else {
				logger.info("The JDBC idempotency store's " + database + " connections are in auto-commit mode "
						+ "(Spring Boot's default), and @Idempotent transactions switch auto-commit off and back on: "
						+ "'set autocommit=0' and 'set autocommit=1', two round trips per message with MariaDB "
						+ "Connector/J where START TRANSACTION is one (6 statements instead of 5 for a new message in "
						+ "the project's benchmark). idempotency.start-transaction=true (the default; with Spring's "
						+ "DataSourceTransactionManager or JdbcTransactionManager) begins them with START TRANSACTION; "
						+ "spring.datasource.hikari.auto-commit=false removes the switch from every transaction");
			}
		}
		if (isolation == Connection.TRANSACTION_REPEATABLE_READ) {
			logger.info("The JDBC idempotency store's " + database + " connections run at REPEATABLE READ (the "
					+ "server's default): claims take gap locks, which makes deadlocks between concurrent claims of "
					+ "one key more likely (each is a rollback and a redelivery). READ COMMITTED is recommended: "
					+ "spring.datasource.hikari.transaction-isolation=TRANSACTION_READ_COMMITTED");
		}
	}

	private boolean beginsWithStartTransaction() {
		IdempotencyTransactionManagerResolver resolver = this.transactionManagers.getIfAvailable();
		PlatformTransactionManager transactionManager;
		try {
			transactionManager = (resolver != null) ? resolver.resolve(this.store) : null;
		}
		catch (RuntimeException ex) {
			// No usable manager: start-up fails elsewhere with a message that says what to set.
			return false;
		}
		return transactionManager instanceof DataSourceTransactionManager jdbc
				&& jdbc.getDataSource() instanceof StartTransactionDataSource;
	}

}

package dev.idempotency.store.jdbc.autoconfigure;

import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.jdbc.JdbcSchemaCheck;
import dev.idempotency.store.jdbc.JdbcSchemaCheck.SchemaProblem;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcProperties.SchemaCheck;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Runs {@link JdbcSchemaCheck} on the JDBC store's table when the application starts, once every
 * singleton exists (so after the schema scripts, Flyway and Liquibase) and before any listener
 * container starts, as {@code idempotency.jdbc.schema-check} says. A database that does not answer is not the schema's
 * fault: the check is skipped with a warning and the store's fail-closed handling takes over.
 */
final class JdbcSchemaVerifier implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(JdbcSchemaVerifier.class);

	private final JdbcIdempotencyStore store;

	private final SchemaCheck mode;

	JdbcSchemaVerifier(JdbcIdempotencyStore store, SchemaCheck mode) {
		this.store = store;
		this.mode = mode;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.mode == SchemaCheck.OFF) {
			return;
		}
		List<SchemaProblem> problems;
		try {
			problems = new JdbcSchemaCheck(this.store.transactionalResource(), this.store.getDialect(),
					this.store.getTableName())
				.check();
		}
		catch (SQLException | RuntimeException ex) {
			logger.warn("The schema check of the idempotency table '" + this.store.getTableName()
					+ "' could not run (the database did not answer): " + ex);
			return;
		}
		if (problems.isEmpty()) {
			return;
		}
		String report = "The idempotency table '" + this.store.getTableName() + "' differs from the shipped schema:"
				+ problems.stream().map((problem) -> "\n - " + problem).collect(Collectors.joining())
				+ "\n(idempotency.jdbc.schema-check=" + this.mode.name().toLowerCase(Locale.ROOT)
				+ "; 'warn' only logs this, 'off' skips the check)";
		if (this.mode == SchemaCheck.FAIL) {
			throw new IllegalStateException(report);
		}
		logger.warn(report);
	}

}

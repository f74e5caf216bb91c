package dev.idempotency.store.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;

import javax.sql.DataSource;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.support.ClaimTokens;
import dev.idempotency.support.jdbc.DatabasePlatform;
import dev.idempotency.support.jdbc.SqlIdentifier;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The dedup table as the leased side reaches it ({@link JdbcLeasedIdempotencyStore},
 * {@link JdbcUnfinishedClaims}, {@link JdbcParkedKeys}): its statements, its database's platform,
 * the clock, the claims' tokens, and a short transaction of its own for each step, never the
 * caller's.
 */
final class LeasedTable {

	final JdbcTemplate jdbc;

	/** Manages the transactions of this table's steps; a reconciler's scan runs its own on it. */
	final JdbcTransactionManager transactionManager;

	final DatabasePlatform platform;

	final String name;

	final Clock clock;

	final LeasedStatements sql;

	final Supplier<String> tokens = new ClaimTokens();

	private final TransactionTemplate transactions;

	LeasedTable(DataSource dataSource, DatabasePlatform platform, String tableName, Clock clock) {
		this.jdbc = new JdbcTemplate(dataSource);
		// A transaction manager of its own on this DataSource, REQUIRES_NEW: each step suspends
		// whatever transaction the caller runs (of any manager) and commits before it returns.
		this.transactionManager = new JdbcTransactionManager(dataSource);
		this.transactions = new TransactionTemplate(this.transactionManager);
		this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.platform = platform;
		this.name = SqlIdentifier.requireValid(tableName);
		this.clock = clock;
		this.sql = new LeasedStatements(platform, this.name);
	}

	/**
	 * Marks the stored key completed for {@code retention} if the record still holds {@code token}.
	 * @return the affected-row count: 0 if the claim was taken over
	 */
	int completeByToken(IdempotencyKey stored, @Nullable String token, Duration retention) {
		Object expiresAt = this.platform.timestamp(this.clock.instant().plus(retention));
		return update("complete", stored, this.sql.complete, expiresAt, stored.namespace(), stored.value(), token);
	}

	/** One statement in a transaction of its own; its affected-row count. */
	int update(String action, IdempotencyKey key, String updateSql, @Nullable Object... args) {
		try {
			Integer updated = inTransaction((status) -> this.jdbc.update(updateSql, args));
			return (updated != null) ? updated : 0;
		}
		catch (DataAccessException | TransactionException ex) {
			throw new IdempotencyStoreException("Could not " + action + " '" + key + "' in table " + this.name, ex);
		}
	}

	<T> @Nullable T inTransaction(TransactionCallback<T> action) {
		return this.transactions.execute(action);
	}

}

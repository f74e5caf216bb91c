package dev.idempotency.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;

import dev.idempotency.core.IdempotencyKey;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Any database without an insert-or-ignore (H2, HSQLDB, Oracle, SQL Server, ...): a plain insert
 * inside a savepoint, rolled back to the savepoint on a duplicate key so that the business
 * transaction stays usable; a driver that cannot release a savepoint leaves it to the transaction's
 * end. A duplicate is still judged without an exception reaching the business transaction.
 */
final class SavepointInsert extends ClaimStatement {

	private static final Log logger = LogFactory.getLog(SavepointInsert.class);

	/** SQL standard state of a unique constraint violation. */
	private static final String UNIQUE_VIOLATION = "23505";

	SavepointInsert(String table) {
		super("INSERT INTO " + table + COLUMNS_AND_VALUES);
	}

	@Override
	int execute(JdbcTemplate jdbc, IdempotencyKey key, String status, Object createdAt, Object expiresAt) {
		Integer inserted = jdbc.execute((ConnectionCallback<Integer>) (connection) -> insertInSavepoint(jdbc,
				connection, key, status, createdAt, expiresAt));
		return (inserted != null) ? inserted : 0;
	}

	@Override
	void bind(PreparedStatement ps, IdempotencyKey key, String status, Object createdAt, Object expiresAt)
			throws SQLException {
		bindColumns(ps, key, status, createdAt, expiresAt);
	}

	private int insertInSavepoint(JdbcTemplate jdbc, Connection connection, IdempotencyKey key, String status,
			Object createdAt, Object expiresAt) throws SQLException {
		Savepoint savepoint = connection.setSavepoint();
		try (PreparedStatement insert = connection.prepareStatement(sql())) {
			bind(insert, key, status, createdAt, expiresAt);
			int inserted = insert.executeUpdate();
			releaseIfSupported(connection, savepoint);
			return inserted;
		}
		catch (SQLException ex) {
			if (UNIQUE_VIOLATION.equals(ex.getSQLState())
					|| jdbc.getExceptionTranslator().translate("claim", sql(), ex) instanceof DuplicateKeyException) {
				connection.rollback(savepoint);
				return 0;
			}
			throw ex;
		}
	}

	/**
	 * Releases a savepoint early, as a courtesy to the database. Some drivers do not support it
	 * (Oracle's, for one); as Spring's own savepoint handling does, a failed release is ignored: the
	 * commit or rollback of the transaction releases the savepoint anyway.
	 */
	private static void releaseIfSupported(Connection connection, Savepoint savepoint) {
		try {
			connection.releaseSavepoint(savepoint);
		}
		catch (SQLException | RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Could not release a JDBC savepoint; the transaction's end releases it", ex);
			}
		}
	}

}

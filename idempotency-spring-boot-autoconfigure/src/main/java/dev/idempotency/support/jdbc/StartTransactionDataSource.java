package dev.idempotency.support.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.core.InfrastructureProxy;
import org.springframework.jdbc.datasource.ConnectionProxy;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A MySQL or MariaDB {@code DataSource} whose connections begin a transaction with
 * {@code START TRANSACTION} instead of switching auto-commit off, and end it with {@code COMMIT} or
 * {@code ROLLBACK} without switching it back on: MariaDB Connector/J sends every
 * {@code setAutoCommit} that changes the mode as a round trip of its own ({@code set autocommit=0},
 * {@code set autocommit=1}), two per transaction on a pool in auto-commit mode, where
 * {@code START TRANSACTION} costs one and leaves nothing to restore.
 * <p>
 * Only a transaction manager built on this {@code DataSource} sees these connections: it is an
 * {@link InfrastructureProxy} of the target, so the connection such a manager binds is found under
 * the target {@code DataSource}, and {@code JdbcTemplate}s, {@code @Transactional} methods and
 * {@code DataSourceUtils} on the target join that transaction as they join any other. Connections
 * taken from the target directly are not touched.
 * <p>
 * The connection keeps the JDBC view of the mode: {@code getAutoCommit()} answers {@code false}
 * from {@code setAutoCommit(false)} until {@code setAutoCommit(true)}. Savepoints are SQL
 * statements ({@code SAVEPOINT}, {@code ROLLBACK TO SAVEPOINT}, {@code RELEASE SAVEPOINT}), since
 * some drivers refuse the JDBC calls on a connection in auto-commit mode. Between the end of the
 * transaction and {@code setAutoCommit(true)} (the transaction's after-commit callbacks), a statement
 * on the connection commits on its own, as it does when a transaction manager switches auto-commit
 * back on. A connection closed while its transaction is still open is rolled back first.
 *
 * @since 0.2.0
 */
public final class StartTransactionDataSource extends DelegatingDataSource implements InfrastructureProxy {

	/**
	 * Wraps {@code target}.
	 * @param target a MySQL or MariaDB {@code DataSource}
	 */
	public StartTransactionDataSource(DataSource target) {
		super(target);
	}

	@Override
	public Connection getConnection() throws SQLException {
		return wrap(obtainTargetDataSource().getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return wrap(obtainTargetDataSource().getConnection(username, password));
	}

	@Override
	public Object getWrappedObject() {
		return obtainTargetDataSource();
	}

	private static Connection wrap(Connection target) {
		return (Connection) Proxy.newProxyInstance(ConnectionProxy.class.getClassLoader(),
				new Class<?>[] { ConnectionProxy.class }, new StartTransactionConnection(target));
	}

	/** The state of one connection: the JDBC auto-commit mode it shows, and its open transaction. */
	private static final class StartTransactionConnection implements InvocationHandler {

		private final Connection target;

		/** Whether {@code setAutoCommit(false)} began a transaction here, until {@code setAutoCommit(true)}. */
		private boolean manual;

		/** Whether the transaction begun here is still open on the server. */
		private boolean open;

		private int savepoints;

		StartTransactionConnection(Connection target) {
			this.target = target;
		}

		@Override
		public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
			switch (method.getName()) {
				case "getTargetConnection":
					return this.target;
				case "equals":
					return proxy == args[0];
				case "hashCode":
					return System.identityHashCode(proxy);
				case "toString":
					return "START TRANSACTION proxy for " + this.target;
				case "getAutoCommit":
					return !this.manual && this.target.getAutoCommit();
				case "setAutoCommit":
					setAutoCommit((Boolean) args[0]);
					return null;
				case "commit":
					if (this.manual) {
						end("COMMIT");
						return null;
					}
					break;
				case "rollback":
					if (this.manual && args == null) {
						end("ROLLBACK");
						return null;
					}
					if (this.manual) {
						execute("ROLLBACK TO SAVEPOINT " + ((NamedSavepoint) args[0]).name);
						return null;
					}
					break;
				case "setSavepoint":
					if (this.manual) {
						NamedSavepoint savepoint = new NamedSavepoint(++this.savepoints,
								(args != null) ? (String) args[0] : null);
						execute("SAVEPOINT " + savepoint.name);
						return savepoint;
					}
					break;
				case "releaseSavepoint":
					if (this.manual) {
						execute("RELEASE SAVEPOINT " + ((NamedSavepoint) args[0]).name);
						return null;
					}
					break;
				case "close":
					close();
					return null;
				default:
					break;
			}
			try {
				return method.invoke(this.target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}

		private void setAutoCommit(boolean autoCommit) throws SQLException {
			if (!autoCommit && !this.manual && this.target.getAutoCommit()) {
				execute("START TRANSACTION");
				this.manual = true;
				this.open = true;
			}
			else if (autoCommit && this.manual) {
				// Reached with the transaction open only when both its commit and its rollback
				// failed: never commit what the transaction manager gave up on.
				end("ROLLBACK");
				this.manual = false;
			}
			else if (!this.manual) {
				this.target.setAutoCommit(autoCommit);
			}
		}

		private void end(String statement) throws SQLException {
			if (this.open) {
				execute(statement);
			}
			this.open = false;
			this.savepoints = 0;
		}

		private void close() throws SQLException {
			try {
				end("ROLLBACK");
			}
			finally {
				this.manual = false;
				this.open = false;
				this.target.close();
			}
		}

		private void execute(String sql) throws SQLException {
			try (Statement statement = this.target.createStatement()) {
				statement.execute(sql);
			}
		}

	}

	/** A savepoint created with SQL; its name is generated, as the driver's own are. */
	private static final class NamedSavepoint implements Savepoint {

		private final int id;

		private final @Nullable String label;

		private final String name;

		NamedSavepoint(int id, @Nullable String label) {
			this.id = id;
			this.label = label;
			this.name = "idempotency_savepoint_" + id;
		}

		@Override
		public int getSavepointId() throws SQLException {
			if (this.label != null) {
				throw new SQLException("Savepoint '" + this.label + "' is named, not numbered");
			}
			return this.id;
		}

		@Override
		public String getSavepointName() throws SQLException {
			if (this.label == null) {
				throw new SQLException("Savepoint " + this.id + " is numbered, not named");
			}
			return this.label;
		}

	}

}

package dev.idempotency.outbox;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A {@link DataSource} that records the SQL of every statement prepared or executed on its
 * connections, so that a test can replay what a repository really sent under {@code EXPLAIN}.
 */
final class RecordingDataSource extends DelegatingDataSource {

	private final List<String> statements;

	/**
	 * Records into the given list.
	 * @param target the data source to use
	 * @param statements where the SQL goes, in the order it was sent
	 */
	RecordingDataSource(DataSource target, List<String> statements) {
		super(target);
		this.statements = statements;
	}

	@Override
	public Connection getConnection() throws SQLException {
		Connection connection = super.getConnection();
		return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
				(proxy, method, args) -> {
					if (method.getName().equals("prepareStatement") && args != null && args[0] instanceof String sql) {
						this.statements.add(sql);
					}
					Object result = invoke(method, connection, args);
					return (result instanceof Statement created && !(result instanceof PreparedStatement))
							? recording(created) : result;
				});
	}

	private Statement recording(Statement target) {
		return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Statement.class },
				(proxy, method, args) -> {
					if (method.getName().startsWith("execute") && args != null && args[0] instanceof String sql) {
						this.statements.add(sql);
					}
					return invoke(method, target, args);
				});
	}

	private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}

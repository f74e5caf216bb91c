package dev.idempotency.store.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JDBC store contract through the generic savepoint dialect on a driver that does not support
 * {@link Connection#releaseSavepoint} (as Oracle's does not): H2 behind connections that refuse it.
 * A savepoint that cannot be released is released by the commit or the rollback anyway.
 */
class H2WithoutSavepointReleaseJdbcIdempotencyStoreTests extends AbstractJdbcIdempotencyStoreContractTests {

	private final AtomicInteger refusedReleases = new AtomicInteger();

	@Override
	protected HikariDataSource createDataSource() {
		JdbcDataSource h2 = new JdbcDataSource();
		h2.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		h2.setUser("sa");
		HikariDataSource pool = new HikariDataSource();
		pool.setDataSource(new DelegatingDataSource(h2) {

			@Override
			public Connection getConnection() throws SQLException {
				return refusingSavepointRelease(super.getConnection());
			}

			@Override
			public Connection getConnection(String username, String password) throws SQLException {
				return refusingSavepointRelease(super.getConnection(username, password));
			}

		});
		pool.setMaximumPoolSize(24);
		return pool;
	}

	private Connection refusingSavepointRelease(Connection connection) {
		return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
				(proxy, method, args) -> {
					if (method.getName().equals("releaseSavepoint")) {
						this.refusedReleases.incrementAndGet();
						throw new SQLFeatureNotSupportedException("releaseSavepoint is not supported");
					}
					try {
						return method.invoke(connection, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
				});
	}

	@Override
	protected String platform() {
		return "h2";
	}

	@Override
	protected JdbcIdempotencyDialect expectedDialect() {
		return JdbcIdempotencyDialect.GENERIC;
	}

	@Test
	void claimIsGrantedWhenTheDriverCannotReleaseTheSavepoint() {
		int refusedBefore = this.refusedReleases.get();
		assertThat(claimAndSucceed(key("no-release")).isClaimed()).isTrue();
		assertThat(this.refusedReleases.get()).as("releases the driver refused").isGreaterThan(refusedBefore);
	}

}

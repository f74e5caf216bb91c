package dev.idempotency.testsupport;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The proxy in front of the real PostgreSQL: forwards, refuses and resets while cut, forwards again
 * after the restore on the same port.
 */
class TcpProxyIntegrationTests {

	@Test
	void cutRefusesAndResetsThenRestoreForwardsAgain() throws Exception {
		try (TcpProxy proxy = TcpProxy.start("127.0.0.1", 5432)) {
			String url = "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test?connectTimeout=2&socketTimeout=5";
			try (Connection open = DriverManager.getConnection(url, "postgres", "")) {
				assertThat(selectOne(open)).isEqualTo(1);
				proxy.cut();
				assertThat(proxy.isUp()).isFalse();
				assertThatExceptionOfType(SQLException.class).isThrownBy(() -> selectOne(open));
				assertThatExceptionOfType(SQLException.class).isThrownBy(() -> DriverManager.getConnection(url, "postgres", ""));
			}
			proxy.restore();
			try (Connection again = DriverManager.getConnection(url, "postgres", "")) {
				assertThat(selectOne(again)).isEqualTo(1);
			}
			assertThat(proxy.accepted()).isEqualTo(2);
		}
	}

	private static int selectOne(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery("SELECT 1")) {
			rows.next();
			return rows.getInt(1);
		}
	}

}

package dev.idempotency.testsupport;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The proxy in front of the real PostgreSQL: forwards, refuses and resets while cut, forwards again
 * after the restore on the same port; with a latency, in front of the real Redis, a round trip takes
 * at least twice the latency.
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

	@Test
	void aLatencyDelaysEachDirection() throws Exception {
		Duration latency = Duration.ofMillis(25);
		try (TcpProxy proxy = TcpProxy.start(TestRedisConnections.host(), TestRedisConnections.port(), latency);
				Socket socket = new Socket("127.0.0.1", proxy.port())) {
			socket.setSoTimeout(5000);
			OutputStream out = socket.getOutputStream();
			InputStream in = socket.getInputStream();
			for (int i = 0; i < 2; i++) {
				long start = System.nanoTime();
				out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
				out.flush();
				assertThat(new String(in.readNBytes(7), StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(latency.multipliedBy(2));
			}
		}
	}

	private static int selectOne(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery("SELECT 1")) {
			rows.next();
			return rows.getInt(1);
		}
	}

}

package dev.idempotency.outbox;

import java.lang.reflect.Proxy;
import java.lang.reflect.InvocationTargetException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;
import dev.idempotency.outbox.jdbc.OutboxDialect;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbox on PostgreSQL.
 */
class OutboxRelayPostgresIntegrationTests extends AbstractOutboxRelayIntegrationTests {

	private static final Pattern REMOVED = Pattern.compile("Rows Removed by Filter: (\\d+)");

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.postgres();
	}

	@Override
	protected String platform() {
		return "postgresql";
	}

	@Override
	protected OutboxDialect expectedDialect() {
		return OutboxDialect.POSTGRESQL;
	}

	/**
	 * The relay's claim ({@code ORDER BY id LIMIT}) reads the pending rows, not the sent ones that wait
	 * for the purge. While a backlog drains, the table's statistics still say "mostly pending", and
	 * PostgreSQL walked the primary key from the oldest row through every row sent so far, for every
	 * batch (quadratic in the backlog), until the pending rows had an index of their own in id order.
	 */
	@Test
	void claimDoesNotWalkTheSentRows() throws Exception {
		jdbc().update("INSERT INTO idempotency_outbox (message_id, destination, message_key, payload, status, attempts,"
				+ " created_at, next_attempt_at) SELECT 'm-' || g, 'orders', 'acct-' || ((g * 7919) % 1000), 'payload', 'PENDING', 0, now(), now()"
				+ " FROM generate_series(1, 20000) g");
		jdbc().execute("ANALYZE idempotency_outbox");
		// Half drained: the oldest 10,000 rows sent, the statistics not yet refreshed.
		jdbc().update("UPDATE idempotency_outbox SET status = 'SENT', sent_at = now() WHERE id <= ("
				+ "SELECT min(id) + 9999 FROM idempotency_outbox)");
		// Three batches on their way.
		jdbc().update("UPDATE idempotency_outbox SET claimed_until = now() + interval '1 minute' WHERE status = 'PENDING'"
				+ " AND id <= (SELECT min(id) + 10299 FROM idempotency_outbox)");
		List<String> statements = new CopyOnWriteArrayList<>();
		JdbcOutboxRepository repository = new JdbcOutboxRepository(recording(dataSource(), statements),
				OutboxDialect.POSTGRESQL, "idempotency_outbox", JsonMapper.shared(), Clock.systemUTC());
		assertThat(repository.claim(100, Duration.ofMinutes(1), true)).hasSize(100);
		String claim = statements.stream().filter((sql) -> sql.startsWith("UPDATE")).findFirst().orElseThrow();
		List<String> plan = plan(claim);
		long removed = plan.stream()
			.map(REMOVED::matcher)
			.filter(Matcher::find)
			.mapToLong((line) -> Long.parseLong(line.group(1)))
			.sum();
		assertThat(removed).as("rows the claim read and dropped, with 10,000 sent rows in the table").isLessThan(1000);
		assertThat(plan).as("the claim's plan").noneMatch((line) -> line.contains("Seq Scan"));
	}

	/** The plan of the claim's statement, run once more under EXPLAIN ANALYZE and rolled back. */
	private List<String> plan(String claim) throws SQLException {
		int parameter = 0;
		StringBuilder numbered = new StringBuilder();
		for (char c : claim.toCharArray()) {
			numbered.append((c == '?') ? "$" + (++parameter) : String.valueOf(c));
		}
		assertThat(parameter).as("parameters: lease, now, now, batch size").isEqualTo(4);
		List<String> plan = new ArrayList<>();
		try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			statement.execute("PREPARE outbox_claim AS " + numbered);
			try (ResultSet lines = statement.executeQuery(
					"EXPLAIN ANALYZE EXECUTE outbox_claim(now() + interval '1 minute', now(), now(), 100)")) {
				while (lines.next()) {
					plan.add(lines.getString(1));
				}
			}
			finally {
				connection.rollback();
				statement.execute("DEALLOCATE outbox_claim");
				connection.setAutoCommit(true);
			}
		}
		return plan;
	}

	private static DataSource recording(DataSource target, List<String> statements) {
		return new DelegatingDataSource(target) {

			@Override
			public Connection getConnection() throws SQLException {
				Connection connection = super.getConnection();
				return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
						new Class<?>[] { Connection.class }, (proxy, method, args) -> {
							if (method.getName().equals("prepareStatement") && args != null && args[0] instanceof String sql) {
								statements.add(sql);
							}
							try {
								return method.invoke(connection, args);
							}
							catch (InvocationTargetException ex) {
								throw ex.getCause();
							}
						});
			}

		};
	}

}

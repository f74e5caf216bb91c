package dev.idempotency.outbox;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;
import dev.idempotency.outbox.jdbc.OutboxDialect;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbox on PostgreSQL.
 */
class OutboxRelayPostgresIntegrationTests extends AbstractOutboxRelayIntegrationTests {

	private static final Pattern REMOVED = Pattern.compile("Rows Removed by Filter: (\\d+)");

	private static final Pattern ACTUAL = Pattern.compile("\\(actual time=[0-9.]+\\.\\.[0-9.]+ rows=(\\d+) loops=(\\d+)\\)");

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
		JdbcOutboxRepository repository = recordingRepository(statements);
		assertThat(repository.claim(100, Duration.ofMinutes(1), true)).hasSize(100);
		List<String> plan = plan(statements, "UPDATE",
				(parameters) -> List.of("now() + interval '1 minute'", "now()", "now()", "100"));
		assertThat(removedByFilter(plan)).as("rows the claim read and dropped, with 10,000 sent rows in the table")
			.isLessThan(1000);
		assertThat(plan).as("the claim's plan").noneMatch((line) -> line.contains("Seq Scan"));
	}

	/**
	 * A backlog on a new table (never analyzed) is claimed and marked batch by batch, with and without
	 * per-key ordering. Without the claim's {@code enable_sort = off} the planner read every pending
	 * row (and, ordered per key, probed each one's key) and sorted them to claim 100; without the
	 * mark's settings it read every pending row to find its 100: both quadratic in the backlog.
	 */
	@ParameterizedTest(name = "ordered per key: {0}")
	@ValueSource(booleans = { false, true })
	void aBacklogOnANewTableIsClaimedAndMarkedBatchByBatch(boolean orderedPerKey) throws Exception {
		new ResourceDatabasePopulator(new ClassPathResource("dev/idempotency/outbox/schema-drop-postgresql.sql"),
				new ClassPathResource("dev/idempotency/outbox/schema-postgresql.sql"))
			.execute(dataSource());
		insertRows("PENDING", 10000);
		assertClaimedAndMarkedBatchByBatch(orderedPerKey);
	}

	/**
	 * A backlog on a table whose statistics say nothing is pending (every row was sent when it was
	 * last analyzed, the steady state of an outbox) is marked through the primary key: with a
	 * partial index on {@code status} the planner read every pending row to mark 100.
	 */
	@Test
	void aBacklogAfterASteadyStateIsClaimedAndMarkedBatchByBatch() throws Exception {
		insertRows("SENT", 20000);
		jdbc().execute("ANALYZE idempotency_outbox");
		// The sent rows are purged, and a backlog builds up (a broker outage, a burst) before the next analyze.
		jdbc().execute("TRUNCATE idempotency_outbox");
		insertRows("PENDING", 10000);
		assertClaimedAndMarkedBatchByBatch(false);
	}

	private void insertRows(String status, int count) {
		jdbc().update("INSERT INTO idempotency_outbox (message_id, destination, message_key, payload, status, attempts,"
				+ " created_at, next_attempt_at, sent_at) SELECT '" + status + "-' || g, 'orders', 'acct-' || (g % 1000),"
				+ " 'payload', '" + status + "', 0, now(), now(), " + (status.equals("SENT") ? "now()" : "NULL")
				+ " FROM generate_series(1, " + count + ") g");
	}

	/** Claims and marks a batch of 100 and replays both statements under EXPLAIN ANALYZE. */
	private void assertClaimedAndMarkedBatchByBatch(boolean orderedPerKey) throws SQLException {
		List<String> statements = new CopyOnWriteArrayList<>();
		JdbcOutboxRepository repository = recordingRepository(statements);
		List<OutboxMessage> batch = repository.claim(100, Duration.ofMinutes(1), orderedPerKey);
		assertThat(batch).hasSize(100);
		List<String> claim = plan(statements, "UPDATE idempotency_outbox SET claimed_until",
				(parameters) -> List.of("now() + interval '1 minute'", "now()", "now()", "100"));
		assertThat(rowsRead(claim)).as("rows the claim read for a batch of 100, 9,900 pending: %s", claim)
			.isLessThan(1000);
		statements.clear();
		assertThat(repository.markSent(batch)).isEqualTo(100);
		// Replayed once more with the batch's ids (sent now: the plan, not the outcome, is looked at).
		List<String> ids = batch.stream().map((row) -> String.valueOf(row.id())).toList();
		List<String> mark = plan(statements, "UPDATE idempotency_outbox SET status = 'SENT'",
				(parameters) -> Stream.concat(Stream.of("now()"),
						(parameters == 2) ? Stream.of(ids.stream().collect(Collectors.joining(",", "'{", "}'")))
								: ids.stream())
					.toList());
		assertThat(rowsRead(mark)).as("rows the mark read for a batch of 100, 9,900 pending: %s", mark)
			.isLessThan(1000);
	}

	private JdbcOutboxRepository recordingRepository(List<String> statements) {
		return new JdbcOutboxRepository(new RecordingDataSource(dataSource(), statements), OutboxDialect.POSTGRESQL,
				"idempotency_outbox", JsonMapper.shared(), Clock.systemUTC());
	}

	private static long removedByFilter(List<String> plan) {
		return plan.stream()
			.map(REMOVED::matcher)
			.filter(Matcher::find)
			.mapToLong((line) -> Long.parseLong(line.group(1)))
			.sum();
	}

	/** The rows a plan read: what its nodes returned, and what their filters dropped. */
	private static long rowsRead(List<String> plan) {
		long returned = plan.stream()
			.map(ACTUAL::matcher)
			.filter(Matcher::find)
			.mapToLong((node) -> Long.parseLong(node.group(1)) * Long.parseLong(node.group(2)))
			.max()
			.orElseThrow();
		return returned + removedByFilter(plan);
	}

	/**
	 * The plan of the first recorded statement that starts with {@code prefix}, run once more under
	 * EXPLAIN ANALYZE, after the settings the repository made ({@code SET LOCAL}), and rolled back.
	 */
	private List<String> plan(List<String> statements, String prefix, IntFunction<List<String>> argumentsForParameters)
			throws SQLException {
		String sql = statements.stream().filter((recorded) -> recorded.startsWith(prefix)).findFirst().orElseThrow();
		int parameter = 0;
		StringBuilder numbered = new StringBuilder();
		for (char c : sql.toCharArray()) {
			numbered.append((c == '?') ? "$" + (++parameter) : String.valueOf(c));
		}
		List<String> arguments = argumentsForParameters.apply(parameter);
		assertThat(arguments).as("arguments of %s", sql).hasSize(parameter);
		List<String> plan = new ArrayList<>();
		try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			for (String setting : statements) {
				if (setting.startsWith("SET LOCAL")) {
					statement.execute(setting);
				}
			}
			statement.execute("PREPARE outbox_statement AS " + numbered);
			try (ResultSet lines = statement
				.executeQuery("EXPLAIN ANALYZE EXECUTE outbox_statement(" + String.join(", ", arguments) + ")")) {
				while (lines.next()) {
					plan.add(lines.getString(1));
				}
			}
			finally {
				connection.rollback();
				statement.execute("DEALLOCATE outbox_statement");
				connection.setAutoCommit(true);
			}
		}
		return plan;
	}

}

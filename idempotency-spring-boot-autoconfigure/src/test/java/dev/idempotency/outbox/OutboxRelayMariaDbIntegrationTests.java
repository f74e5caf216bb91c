package dev.idempotency.outbox;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.outbox.jdbc.JdbcOutboxRepository;
import dev.idempotency.outbox.jdbc.OutboxDialect;
import dev.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The outbox on MariaDB (10.6 or later, for {@code SKIP LOCKED}).
 */
class OutboxRelayMariaDbIntegrationTests extends AbstractOutboxRelayIntegrationTests {

	private static final Pattern ROWS_READ = Pattern.compile("\"r_rows\": ([0-9.]+)");

	@Override
	protected HikariDataSource createDataSource() {
		return TestDatabases.mariaDb();
	}

	@Override
	protected String platform() {
		return "mariadb";
	}

	@Override
	protected OutboxDialect expectedDialect() {
		return OutboxDialect.MYSQL;
	}

	/**
	 * The relay's claim ({@code ORDER BY id LIMIT}) reads the pending rows, not the sent ones that wait
	 * for the purge. The optimizer assumed the due rows were spread evenly over the primary key and
	 * walked it from the oldest row, through every sent row, for every batch (20,200 rows read here to
	 * claim 100), until the claim took its order from the pending rows' index.
	 */
	@Test
	void claimDoesNotWalkTheSentRows() throws Exception {
		jdbc().update("INSERT INTO idempotency_outbox (message_id, destination, message_key, payload, status, attempts,"
				+ " created_at, next_attempt_at, sent_at) SELECT concat('sent-', seq), 'orders', concat('acct-', seq % 1000),"
				+ " 'payload', 'SENT', 0, now(6), now(6), now(6) FROM seq_1_to_20000");
		jdbc().update("INSERT INTO idempotency_outbox (message_id, destination, message_key, payload, status, attempts,"
				+ " created_at, next_attempt_at) SELECT concat('m-', seq), 'orders', concat('acct-', seq % 1000), 'payload',"
				+ " 'PENDING', 0, now(6), now(6) FROM seq_1_to_10000");
		jdbc().queryForList("ANALYZE TABLE idempotency_outbox");
		List<String> statements = new CopyOnWriteArrayList<>();
		JdbcOutboxRepository repository = new JdbcOutboxRepository(new RecordingDataSource(dataSource(), statements),
				OutboxDialect.MYSQL, "idempotency_outbox", JsonMapper.shared(), Clock.systemUTC());
		assertThat(repository.claim(100, Duration.ofMinutes(1), false)).hasSize(100);
		String claim = statements.stream().filter((sql) -> sql.startsWith("SELECT")).findFirst().orElseThrow();
		String analyzed = analyze(claim.replaceFirst("\\?", "now(6)").replaceFirst("\\?", "now(6)").replace("?", "100"));
		Matcher rows = ROWS_READ.matcher(analyzed);
		double read = 0;
		while (rows.find()) {
			read += Double.parseDouble(rows.group(1));
		}
		assertThat(read).as("rows the claim read for a batch of 100 after 20,000 sent rows: %s", analyzed)
			.isPositive()
			.isLessThan(1000);
	}

	/** The claim run once more under {@code ANALYZE FORMAT=JSON} (its real plan and row counts), rolled back. */
	private String analyze(String select) throws SQLException {
		try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			try (ResultSet result = statement.executeQuery("ANALYZE FORMAT=JSON " + select)) {
				assertThat(result.next()).isTrue();
				return result.getString(1);
			}
			finally {
				connection.rollback();
				connection.setAutoCommit(true);
			}
		}
	}

}

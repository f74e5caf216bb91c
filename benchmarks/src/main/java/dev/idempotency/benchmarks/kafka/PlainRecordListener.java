package dev.idempotency.benchmarks.kafka;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

import javax.sql.DataSource;

import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.VariantApp;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.Acknowledgment;

/**
 * The plain record baseline ({@code plain-record}): the best record listener a user could write by
 * hand, without Spring's transaction machinery. The container runs with {@code AckMode.MANUAL}; the
 * listener takes a connection, runs the insert-or-ignore and the business writes in one plain JDBC
 * transaction with prepared statements, commits, and only then acknowledges.
 */
public class PlainRecordListener {

	private final DataSource dataSource;

	private final LedgerTables tables;

	private final String insertSql;

	public PlainRecordListener(DataSource dataSource, LedgerTables tables) {
		this.dataSource = dataSource;
		this.tables = tables;
		this.insertSql = tables.insertOrIgnore();
	}

	@KafkaListener(id = VariantApp.LISTENER_ID, idIsGroup = false, topics = "${bench.topic}",
			autoStartup = "false")
	public void onRecord(ConsumerRecord<String, String> rec, Acknowledgment acknowledgment) throws SQLException {
		String value = rec.value();
		int colon = value.indexOf(':');
		int account = Integer.parseInt(value.substring(0, colon));
		long amount = Long.parseLong(value.substring(colon + 1));
		Instant now = Instant.now();
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(false);
			try {
				if (insertOrIgnore(connection, rec.key(), now)) {
					apply(connection, rec.key(), account, amount);
				}
				connection.commit();
			}
			catch (SQLException | RuntimeException ex) {
				connection.rollback();
				throw ex;
			}
			finally {
				connection.setAutoCommit(true);
			}
		}
		acknowledgment.acknowledge();
	}

	private boolean insertOrIgnore(Connection connection, String key, Instant now) throws SQLException {
		try (PreparedStatement insert = connection.prepareStatement(this.insertSql)) {
			insert.setString(1, "plain");
			insert.setString(2, key);
			insert.setString(3, "COMPLETED");
			insert.setObject(4, this.tables.timestamp(now));
			insert.setObject(5, this.tables.timestamp(now.plus(Duration.ofHours(1))));
			return insert.executeUpdate() == 1;
		}
	}

	private static void apply(Connection connection, String key, int account, long amount) throws SQLException {
		try (PreparedStatement credit = connection.prepareStatement(LedgerTables.CREDIT)) {
			credit.setLong(1, amount);
			credit.setInt(2, account);
			if (credit.executeUpdate() != 1) {
				throw new IllegalStateException("No account " + account);
			}
		}
		try (PreparedStatement ledger = connection.prepareStatement(LedgerTables.LEDGER)) {
			ledger.setString(1, key);
			ledger.setInt(2, account);
			ledger.setLong(3, amount);
			ledger.executeUpdate();
		}
	}

}

package dev.idempotency.benchmarks.outbox;

import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.benchmarks.support.Database;
import org.apache.kafka.clients.admin.NewTopic;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * What the outbox measurements share: the in-process broker and its topics, the database under test
 * and its tables ({@link OutboxTables}: the outbox table from the shipped schema under another name,
 * accounts and ledger), with the resets and checks of a round.
 */
final class OutboxEnvironment implements AutoCloseable {

	static final String TABLE = "bench_outbox";

	static final int ACCOUNTS = 1000;

	private final String runId = UUID.randomUUID().toString().substring(0, 8);

	private final Database database;

	private final OutboxTables tables;

	private final EmbeddedKafkaKraftBroker broker;

	private final HikariDataSource admin;

	private final JdbcTemplate adminJdbc;

	private int topics;

	OutboxEnvironment(Database database) {
		this.database = database;
		this.tables = OutboxTables.of(database);
		this.broker = new EmbeddedKafkaKraftBroker(1, 2);
		this.broker.afterPropertiesSet();
		this.admin = database.newDataSource(2);
		this.adminJdbc = new JdbcTemplate(this.admin);
		this.tables.create(this.adminJdbc);
	}

	Database database() {
		return this.database;
	}

	String brokers() {
		return this.broker.getBrokersAsString();
	}

	void truncateOutbox() {
		this.adminJdbc.execute("TRUNCATE " + TABLE);
	}

	/** Adds {@code rows} rows already sent and refreshes the statistics (nothing when 0), see {@link OutboxTables}. */
	void insertSentRows(int rows) {
		this.tables.insertSent(this.adminJdbc, rows);
	}

	/** The rows of the table not {@code SENT}, the rows already sent before the round included. */
	long unsentRows() {
		return this.adminJdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE status <> 'SENT'", Long.class);
	}

	/** The message ids of the rows published in the round: every row but those already sent before it. */
	List<String> publishedMessageIds() {
		return this.adminJdbc.queryForList("SELECT message_id FROM " + TABLE + " WHERE message_id NOT LIKE '"
				+ OutboxTables.SENT_PREFIX + "%'", String.class);
	}

	/** How many of the rows already sent before the round are still there, still {@code SENT}. */
	long sentRowsKept() {
		return this.adminJdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE message_id LIKE '"
				+ OutboxTables.SENT_PREFIX + "%' AND status = 'SENT'", Long.class);
	}

	/**
	 * A fresh topic whose metadata the given applications' producers already have, so that no timed
	 * send waits for the first metadata fetch of a new topic.
	 */
	String newTopic(RelayApp... apps) {
		return newTopic(Stream.of(apps).filter(Objects::nonNull).map(RelayApp::kafka).toList());
	}

	/** A fresh topic whose metadata the given templates' producers already have. */
	String newTopic(List<KafkaTemplate<String, String>> producers) {
		String topic = "bench-outbox-" + this.runId + "-" + (this.topics++);
		this.broker.addTopics(new NewTopic(topic, 2, (short) 1));
		producers.forEach((kafka) -> kafka.partitionsFor(topic));
		return topic;
	}

	/** Empties Spring Modulith's publication table. */
	void truncateModulith() {
		this.adminJdbc.execute("TRUNCATE " + ModulithApp.TABLE);
	}

	/** Publications of Spring Modulith's registry: {@code [all, completed]}. */
	long[] modulithPublications() {
		return this.adminJdbc.queryForObject("SELECT COUNT(*), COUNT(completion_date) FROM " + ModulithApp.TABLE,
				(rs, row) -> new long[] { rs.getLong(1), rs.getLong(2) });
	}

	@Override
	public void close() {
		this.admin.close();
		this.broker.destroy();
	}

}

package dev.idempotency.benchmarks.outbox;

import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.ShippedSchema;
import org.apache.kafka.clients.admin.NewTopic;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * What the outbox measurements share: the in-process broker and its topics, and the PostgreSQL
 * tables (the outbox table from the shipped schema under another name, accounts and ledger).
 */
final class OutboxEnvironment implements AutoCloseable {

	static final String TABLE = "bench_outbox";

	static final int ACCOUNTS = 1000;

	private final String runId = UUID.randomUUID().toString().substring(0, 8);

	private final EmbeddedKafkaKraftBroker broker;

	private final HikariDataSource admin;

	private final JdbcTemplate adminJdbc;

	private int topics;

	OutboxEnvironment() {
		this.broker = new EmbeddedKafkaKraftBroker(1, 2);
		this.broker.afterPropertiesSet();
		this.admin = Database.POSTGRESQL.newDataSource(2);
		this.adminJdbc = new JdbcTemplate(this.admin);
		createTables();
	}

	private void createTables() {
		ShippedSchema.create(this.adminJdbc, "dev/idempotency/outbox/schema-postgresql.sql", "idempotency_outbox",
				TABLE);
		this.adminJdbc.execute("CREATE TABLE IF NOT EXISTS bench_outbox_account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
		this.adminJdbc.execute("""
				CREATE TABLE IF NOT EXISTS bench_outbox_ledger (
					id BIGSERIAL PRIMARY KEY,
					msg_key VARCHAR(200) NOT NULL,
					account_id INT NOT NULL,
					amount BIGINT NOT NULL
				)""");
		Integer accounts = this.adminJdbc.queryForObject("SELECT COUNT(*) FROM bench_outbox_account", Integer.class);
		if (accounts == null || accounts != ACCOUNTS) {
			this.adminJdbc.execute("TRUNCATE bench_outbox_account");
			this.adminJdbc.update("INSERT INTO bench_outbox_account (id, balance) SELECT g, 0 FROM generate_series(0, ?) g",
					ACCOUNTS - 1);
		}
	}

	String brokers() {
		return this.broker.getBrokersAsString();
	}

	/** A pool-independent JDBC template on the benchmark database, for resets and checks. */
	JdbcTemplate adminJdbc() {
		return this.adminJdbc;
	}

	void truncateOutbox() {
		this.adminJdbc.execute("TRUNCATE " + TABLE);
	}

	long unsentRows() {
		return this.adminJdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE status <> 'SENT'", Long.class);
	}

	/**
	 * A fresh topic whose metadata the given applications' producers already have, so that no timed
	 * send waits for the first metadata fetch of a new topic.
	 */
	String newTopic(RelayApp... apps) {
		String topic = "bench-outbox-" + this.runId + "-" + (this.topics++);
		this.broker.addTopics(new NewTopic(topic, 2, (short) 1));
		for (RelayApp app : apps) {
			if (app != null) {
				app.kafka().partitionsFor(topic);
			}
		}
		return topic;
	}

	@Override
	public void close() {
		this.admin.close();
		this.broker.destroy();
	}

}

package dev.idempotency.benchmarks.share;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.Message;
import dev.idempotency.benchmarks.support.MessageStream;
import dev.idempotency.benchmarks.support.ThreadCost;
import dev.idempotency.benchmarks.support.Waits;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * One timed round of one share-group listener application: produces the round's records while its
 * container is stopped, starts it, and stops the clock once its listener accepted every record (counted
 * on the listener side, {@link Acceptances}: every accept follows its commit); then stops the container
 * and checks the end state (one effect per distinct key, the balances, every record accepted exactly
 * once). Owns the in-process broker (share groups on), the producer, the admin client and the ledger
 * tables of the run, on the database under test.
 */
final class ShareRounds implements AutoCloseable {

	static final int PARTITIONS = 4;

	private final String runId = UUID.randomUUID().toString().substring(0, 8);

	private final int messages;

	private final EmbeddedKafkaKraftBroker broker;

	private final Admin kafkaAdmin;

	private final KafkaProducer<String, String> producer;

	private final HikariDataSource admin;

	private final JdbcTemplate adminJdbc;

	private final LedgerTables tables;

	ShareRounds(int messages, Database database) {
		this.messages = messages;
		this.broker = new EmbeddedKafkaKraftBroker(1, PARTITIONS);
		this.broker.brokerProperties(Map.of("group.share.enable", "true",
				"share.coordinator.state.topic.num.partitions", "1", "share.coordinator.state.topic.replication.factor",
				"1", "share.coordinator.state.topic.min.isr", "1", "offsets.topic.num.partitions", "1"));
		this.broker.afterPropertiesSet();
		this.kafkaAdmin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
				this.broker.getBrokersAsString()));
		this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
				this.broker.getBrokersAsString(), ProducerConfig.LINGER_MS_CONFIG, 5), new StringSerializer(),
				new StringSerializer());
		this.admin = database.newDataSource(2);
		this.adminJdbc = new JdbcTemplate(this.admin);
		this.tables = LedgerTables.of(database);
		this.tables.create(this.adminJdbc);
	}

	/** The listener application of that name, with its own topic and share group (from the earliest record). */
	ShareListenerApp create(String name, int concurrency) {
		ShareListenerApp app = new ShareListenerApp(name, concurrency, this.runId, this.broker,
				this.tables.database());
		ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, app.group());
		try {
			this.kafkaAdmin
				.incrementalAlterConfigs(Map.of(group, List.of(new AlterConfigOp(
						new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
				.all()
				.get(30, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			app.close();
			throw new IllegalStateException("Could not set share.auto.offset.reset of " + app.group(), ex);
		}
		return app;
	}

	InterleavedRounds.Result run(ShareListenerApp variant, int round) throws Exception {
		// Reset and produce (not timed), while the container is stopped.
		variant.stop();
		this.tables.reset(this.adminJdbc);
		variant.acceptances().reset();
		MessageStream source = new MessageStream(this.runId + "-" + variant.name() + "-c" + variant.concurrency()
				+ "-r" + round, LedgerTables.ACCOUNTS);
		for (int i = 0; i < this.messages; i++) {
			Message message = source.next();
			this.producer.send(new ProducerRecord<>(variant.topic(), message.getKey(),
					message.getAccount() + ":" + message.getAmount()));
		}
		this.producer.flush();
		// Timed: from starting the container until the listener accepted every record (each after its commit).
		ThreadCost before = ThreadCost.of(variant.consumerThreadPrefix());
		long start = System.nanoTime();
		variant.start();
		long deadline = start + Duration.ofMinutes(2).toNanos();
		boolean done = false;
		while (!done && System.nanoTime() < deadline) {
			Waits.sleep(10);
			done = variant.acceptances().count() >= this.messages;
		}
		long elapsed = System.nanoTime() - start;
		ThreadCost.PerMessage cost = ThreadCost.of(variant.consumerThreadPrefix())
			.perMessageSince(before, this.messages);
		variant.stop();
		double seconds = elapsed / 1e9;
		List<String> problems = LedgerTables.problems(this.adminJdbc, source.expected(LedgerTables.ACCOUNTS, false),
				true);
		if (!done) {
			problems.add(0, "not finished within 2 minutes");
		}
		long accepted = variant.acceptances().count();
		if (accepted < this.messages) {
			problems.add((this.messages - accepted) + " records not accepted");
		}
		else if (accepted > this.messages) {
			// Only a record whose acquisition lock expired while it was processed is accepted twice.
			problems.add((accepted - this.messages) + " acceptances more than records (a lock expired)");
		}
		String counts = "records=" + source.issued() + " accepted=" + accepted + " ledger="
				+ LedgerTables.ledgerRows(this.adminJdbc) + " " + cost;
		String verdict = problems.isEmpty() ? "OK (" + counts + ")"
				: "WRONG — " + String.join("; ", problems) + " (" + counts + ")";
		return new InterleavedRounds.Result(this.messages / seconds, seconds, verdict, cost);
	}

	@Override
	public void close() {
		this.producer.close();
		this.kafkaAdmin.close();
		this.broker.destroy();
		this.admin.close();
	}

}

package dev.idempotency.benchmarks.share;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.KafkaRig;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.MessageStream;
import dev.idempotency.benchmarks.support.RunTables;
import dev.idempotency.benchmarks.support.TimedRound;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

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

	private final KafkaRig kafka;

	private final RunTables tables;

	ShareRounds(int messages, Database database) {
		this.messages = messages;
		this.kafka = new KafkaRig(PARTITIONS, Map.of("group.share.enable", "true",
				"share.coordinator.state.topic.num.partitions", "1", "share.coordinator.state.topic.replication.factor",
				"1", "share.coordinator.state.topic.min.isr", "1", "offsets.topic.num.partitions", "1"));
		this.tables = new RunTables(database);
	}

	/** The listener application of that name, with its own topic and share group (from the earliest record). */
	ShareListenerApp create(String name, int concurrency) {
		ShareListenerApp app = new ShareListenerApp(name, concurrency, this.runId, this.kafka,
				this.tables.database());
		ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, app.group());
		try {
			this.kafka.admin()
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
		this.tables.reset();
		variant.acceptances().reset();
		MessageStream source = new MessageStream(this.runId + "-" + variant.name() + "-c" + variant.concurrency()
				+ "-r" + round, LedgerTables.ACCOUNTS);
		this.kafka.produce(variant.topic(), source, this.messages);
		// Timed: from starting the container until the listener accepted every record (each after its commit).
		TimedRound timed = TimedRound.run(variant.consumerThreadPrefix(), this.messages, 10, variant::start,
				() -> variant.acceptances().count() >= this.messages);
		variant.stop();
		List<String> problems = this.tables.problems(source);
		long accepted = variant.acceptances().count();
		if (accepted < this.messages) {
			problems.add((this.messages - accepted) + " records not accepted");
		}
		else if (accepted > this.messages) {
			// Only a record whose acquisition lock expired while it was processed is accepted twice.
			problems.add((accepted - this.messages) + " acceptances more than records (a lock expired)");
		}
		return timed.result(problems, "records=" + source.issued() + " accepted=" + accepted + " ledger="
				+ this.tables.ledgerRows());
	}

	@Override
	public void close() {
		this.kafka.close();
		this.tables.close();
	}

}

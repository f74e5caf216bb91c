package dev.idempotency.benchmarks.kafka;

import java.util.Map;
import java.util.UUID;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.InterleavedRounds;
import dev.idempotency.benchmarks.support.KafkaRig;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.MessageStream;
import dev.idempotency.benchmarks.support.RunTables;
import dev.idempotency.benchmarks.support.TimedRound;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One timed round of one listener application: produces the round's records while its container is
 * paused, resumes it, waits until the group has committed every record, and checks the end state.
 * Owns the in-process broker, the producer, the admin client and the ledger tables of the run, on the
 * database under test.
 */
final class KafkaRounds implements AutoCloseable {

	static final int PARTITIONS = 4;

	private final String runId = UUID.randomUUID().toString().substring(0, 8);

	private final int messages;

	private final boolean byAccount;

	private final KafkaRig kafka;

	private final RunTables tables;

	/**
	 * Starts the broker and opens the tables.
	 * @param messages records per round
	 * @param database the database under test
	 * @param byAccount whether the records are partitioned by account (each account credited by one
	 * consumer) rather than by their key
	 */
	KafkaRounds(int messages, Database database, boolean byAccount) {
		this.messages = messages;
		this.byAccount = byAccount;
		this.kafka = new KafkaRig(PARTITIONS, Map.of());
		this.tables = new RunTables(database);
	}

	/** The listener application of that name, with its own topic and group. */
	KafkaListenerApp create(String name, int concurrency) {
		return new KafkaListenerApp(name, concurrency, this.runId, this.kafka, this.tables.database());
	}

	InterleavedRounds.Result run(KafkaListenerApp variant, int round) throws Exception {
		// Reset and produce (not timed), while the container is paused.
		variant.pause();
		this.tables.reset();
		MessageStream source = new MessageStream(this.runId + "-" + variant.name() + "-c" + variant.concurrency()
				+ "-r" + round, LedgerTables.ACCOUNTS);
		this.kafka.produce(variant.topic(), source, this.messages, this.byAccount);
		Map<TopicPartition, Long> end = this.kafka.endOffsets(variant.topic());
		// Timed: from resuming the container until the group has committed every record.
		TimedRound timed = TimedRound.run(variant.consumerThreadPrefix(), this.messages, 10, variant::resume,
				() -> isDone(variant.group(), end));
		return timed.result(this.tables.problems(source),
				"records=" + source.issued() + " ledger=" + this.tables.ledgerRows());
	}

	private boolean isDone(String group, Map<TopicPartition, Long> end) throws Exception {
		Map<TopicPartition, OffsetAndMetadata> committed = this.kafka.admin()
			.listConsumerGroupOffsets(group)
			.partitionsToOffsetAndMetadata()
			.get();
		for (Map.Entry<TopicPartition, Long> partition : end.entrySet()) {
			OffsetAndMetadata offset = committed.get(partition.getKey());
			if (partition.getValue() > 0 && (offset == null || offset.offset() < partition.getValue())) {
				return false;
			}
		}
		return true;
	}

	@Override
	public void close() {
		this.kafka.close();
		this.tables.close();
	}

}

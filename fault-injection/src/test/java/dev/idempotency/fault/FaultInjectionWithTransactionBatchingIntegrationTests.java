package dev.idempotency.fault;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kafka kill suite with transaction batching on ({@code idempotency.kafka.transaction-batching.enabled}):
 * every consumer runs a poll's records in one transaction (issue 33). The same schedule and checks
 * as {@link FaultInjectionIntegrationTests}, where with batching:
 * <ul>
 * <li>a kill before the commit rolls back the whole poll, and a kill after the commit (the database
 * committed, no offset committed) brings the whole poll back: each order of that transaction must
 * come back as a duplicate in another incarnation (the suite's after-commit check, per order of the
 * transaction), and none is credited twice;</li>
 * <li>a poison record fails the poll's transaction: the poll runs again record by record, the
 * records before the poison are committed, and the records after it are returned and delivered
 * again (the journal's {@code N} lines, so the accounting still closes);</li>
 * <li>a connection dropped at the before-commit point fails the poll's transaction, which runs
 * again record by record: no particular invocation ends {@code failed};</li>
 * <li>a killed consumer may leave a whole poll in flight ({@code max.poll.records}).</li>
 * </ul>
 * Batching must really have happened: some transaction credited more than one order (the ledger
 * row's {@code credited_in}), and so did some transaction killed after its commit. Every consumer runs the record listener in a batch container with
 * {@code AckMode.BATCH}: manual acknowledgement is refused with batching, and Spring Kafka refuses
 * {@code AckMode.RECORD} for a batch listener.
 */
class FaultInjectionWithTransactionBatchingIntegrationTests extends FaultInjectionIntegrationTests {

	/** {@code spring.kafka.consumer.max-poll-records} of the consumer (fault-consumer.properties). */
	private static final int MAX_POLL_RECORDS = 50;

	@Override
	protected Map<String, String> extraConsumerProperties() {
		// The record listener (fault.ack-mode=record picks it) in a batch container: AckMode.BATCH,
		// the container commits the poll's offsets after the listener returned.
		return Map.of("idempotency.kafka.transaction-batching.enabled", "true", "spring.kafka.listener.ack-mode",
				"batch");
	}

	@Override
	protected String ackMode(String slot, int incarnation) {
		return "record";
	}

	/**
	 * A batched child passes its commit points once per poll, not per record: a few passes keep the
	 * wait for a point about as long as 25 record-by-record passes.
	 */
	@Override
	protected int pointPassesBeforeAStop() {
		return 3;
	}

	@Override
	protected int deliveriesInFlightAtAKill() {
		return MAX_POLL_RECORDS;
	}

	@Override
	protected boolean droppedConnectionFailsItsInvocation() {
		return false;
	}

	@Override
	protected void verifyTransactions(Map<Integer, Integer> transactionsBySize, List<Integer> afterCommitKills) {
		System.out.printf("[batching] transactions by orders credited: %s; orders per transaction killed after "
				+ "commit: %s%n", transactionsBySize, afterCommitKills);
		assertThat(transactionsBySize.keySet()).as("orders credited per transaction: some poll committed several")
			.anyMatch((orders) -> orders > 1);
		assertThat(afterCommitKills).as("orders per transaction killed after commit: some held several")
			.anyMatch((orders) -> orders > 1);
	}

}

package dev.idempotency.benchmarks.kafka;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.idempotency.benchmarks.support.LedgerTables;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.jdbc.core.JdbcTemplate;

/** The business writes of the Kafka listeners: a record's value is {@code account:amount}. */
final class LedgerRecords {

	private LedgerRecords() {
	}

	static void apply(JdbcTemplate jdbc, ConsumerRecord<String, String> record) {
		LedgerTables.apply(jdbc, record.key(), account(record), amount(record));
	}

	/**
	 * A batch listener's business writes, in account order (concurrent batches that credit the same
	 * accounts in different orders would deadlock: a property of this workload, not of the dedup):
	 * record by record, or ({@code bulk}) as two JDBC batches, what a batch listener written for
	 * throughput does (pgjdbc sends each JDBC batch in one round trip).
	 */
	static void applyBatch(JdbcTemplate jdbc, List<ConsumerRecord<String, String>> records, boolean bulk) {
		List<ConsumerRecord<String, String>> sorted = new ArrayList<>(records);
		sorted.sort(Comparator.comparingInt(LedgerRecords::account));
		if (bulk) {
			applyAsJdbcBatches(jdbc, sorted);
		}
		else {
			sorted.forEach((record) -> apply(jdbc, record));
		}
	}

	/** The credits, then the ledger rows, each as one JDBC batch; every credit must find its account. */
	private static void applyAsJdbcBatches(JdbcTemplate jdbc, List<ConsumerRecord<String, String>> sorted) {
		if (sorted.isEmpty()) {
			return;
		}
		List<Object[]> credits = new ArrayList<>(sorted.size());
		List<Object[]> ledger = new ArrayList<>(sorted.size());
		for (ConsumerRecord<String, String> record : sorted) {
			int account = account(record);
			long amount = amount(record);
			credits.add(new Object[] { amount, account });
			ledger.add(new Object[] { record.key(), account, amount });
		}
		int[] updated = jdbc.batchUpdate(LedgerTables.CREDIT, credits);
		for (int i = 0; i < updated.length; i++) {
			if (updated[i] != 1) {
				throw new IllegalStateException("No account " + credits.get(i)[1]);
			}
		}
		jdbc.batchUpdate(LedgerTables.LEDGER, ledger);
	}

	private static int account(ConsumerRecord<String, String> record) {
		return Integer.parseInt(record.value().substring(0, record.value().indexOf(':')));
	}

	private static long amount(ConsumerRecord<String, String> record) {
		return Long.parseLong(record.value().substring(record.value().indexOf(':') + 1));
	}

}

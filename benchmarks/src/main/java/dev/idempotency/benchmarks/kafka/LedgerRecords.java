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
		String value = record.value();
		LedgerTables.apply(jdbc, record.key(), account(record), Long.parseLong(value.substring(value.indexOf(':') + 1)));
	}

	/**
	 * A batch's business writes in account order: concurrent batches that credit the same accounts
	 * in different orders would deadlock (a property of this workload, not of the dedup).
	 */
	static void applyInAccountOrder(JdbcTemplate jdbc, List<ConsumerRecord<String, String>> records) {
		List<ConsumerRecord<String, String>> sorted = new ArrayList<>(records);
		sorted.sort(Comparator.comparingInt(LedgerRecords::account));
		sorted.forEach((record) -> apply(jdbc, record));
	}

	private static int account(ConsumerRecord<String, String> record) {
		return Integer.parseInt(record.value().substring(0, record.value().indexOf(':')));
	}

}

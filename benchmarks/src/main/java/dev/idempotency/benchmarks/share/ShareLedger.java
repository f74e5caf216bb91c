package dev.idempotency.benchmarks.share;

import dev.idempotency.benchmarks.support.LedgerTables;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.jdbc.core.JdbcTemplate;

/** The business writes of the share-group listeners: a record's value is {@code account:amount}. */
final class ShareLedger {

	private ShareLedger() {
	}

	static void apply(JdbcTemplate jdbc, ConsumerRecord<String, String> record) {
		String value = record.value();
		int colon = value.indexOf(':');
		LedgerTables.apply(jdbc, record.key(), Integer.parseInt(value.substring(0, colon)),
				Long.parseLong(value.substring(colon + 1)));
	}

}

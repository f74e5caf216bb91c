package dev.idempotency.benchmarks.kafka;

import java.time.Duration;
import java.time.Instant;

import dev.idempotency.benchmarks.support.LedgerTables;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Record baseline ({@code hand-record}): the listener opens the transaction, inserts the key with
 * {@code ON CONFLICT DO NOTHING} and applies the business writes if it was inserted.
 */
public class HandRecordListener {

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	public HandRecordListener(JdbcTemplate jdbc, TransactionTemplate transactions) {
		this.jdbc = jdbc;
		this.transactions = transactions;
	}

	@KafkaListener(id = KafkaListenerApp.LISTENER_ID, idIsGroup = false, topics = "${bench.topic}",
			autoStartup = "false")
	public void onRecord(ConsumerRecord<String, String> rec) {
		this.transactions.executeWithoutResult((status) -> {
			Instant now = Instant.now();
			if (this.jdbc.update(LedgerTables.INSERT_OR_IGNORE, "hand", rec.key(), "COMPLETED", LedgerRecords.utc(now),
					LedgerRecords.utc(now.plus(Duration.ofHours(1)))) == 1) {
				LedgerRecords.apply(this.jdbc, rec);
			}
		});
	}

}

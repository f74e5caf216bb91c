package dev.idempotency.benchmarks.kafka;

import java.time.Duration;
import java.time.Instant;

import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.VariantApp;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Record baseline ({@code hand-record}): the listener opens the transaction, inserts the key with
 * {@code ON CONFLICT DO NOTHING} (MariaDB: {@code INSERT IGNORE}) and applies the business writes if it
 * was inserted.
 */
public class HandRecordListener {

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final LedgerTables tables;

	private final String insertSql;

	public HandRecordListener(JdbcTemplate jdbc, TransactionTemplate transactions, LedgerTables tables) {
		this.jdbc = jdbc;
		this.transactions = transactions;
		this.tables = tables;
		this.insertSql = tables.insertOrIgnore();
	}

	@KafkaListener(id = VariantApp.LISTENER_ID, idIsGroup = false, topics = "${bench.topic}",
			autoStartup = "false")
	public void onRecord(ConsumerRecord<String, String> rec) {
		this.transactions.executeWithoutResult((status) -> {
			Instant now = Instant.now();
			if (this.jdbc.update(this.insertSql, "hand", rec.key(), "COMPLETED", this.tables.timestamp(now),
					this.tables.timestamp(now.plus(Duration.ofHours(1)))) == 1) {
				LedgerRecords.apply(this.jdbc, rec);
			}
		});
	}

}

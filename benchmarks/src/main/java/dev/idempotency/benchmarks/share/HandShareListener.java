package dev.idempotency.benchmarks.share;

import java.time.Duration;
import java.time.Instant;

import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.VariantApp;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.ShareAcknowledgment;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The baseline ({@code hand}): a share-group listener in {@code ShareAckMode.MANUAL} that, in one JDBC
 * transaction, inserts the record's key into the dedup table with {@code ON CONFLICT DO NOTHING}
 * (MariaDB: {@code INSERT IGNORE}) and applies the business writes if it was inserted, then accepts
 * the record once the transaction committed (a duplicate is accepted too) and counts it in the round's
 * {@link Acceptances}. A failure releases it.
 */
public class HandShareListener {

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final LedgerTables tables;

	private final Acceptances acceptances;

	private final String insertSql;

	HandShareListener(JdbcTemplate jdbc, TransactionTemplate transactions, LedgerTables tables,
			Acceptances acceptances) {
		this.jdbc = jdbc;
		this.transactions = transactions;
		this.tables = tables;
		this.acceptances = acceptances;
		this.insertSql = tables.insertOrIgnore();
	}

	@KafkaListener(id = VariantApp.LISTENER_ID, topics = "${bench.topic}", groupId = "${bench.group}",
			containerFactory = ShareListenerApp.FACTORY, concurrency = "${bench.concurrency}", autoStartup = "false")
	public void onRecord(ConsumerRecord<String, String> rec, ShareAcknowledgment acknowledgment) {
		try {
			this.transactions.executeWithoutResult((status) -> {
				Instant now = Instant.now();
				if (this.jdbc.update(this.insertSql, "hand", rec.key(), "COMPLETED", this.tables.timestamp(now),
						this.tables.timestamp(now.plus(Duration.ofHours(1)))) == 1) {
					ShareLedger.apply(this.jdbc, rec);
				}
			});
		}
		catch (RuntimeException ex) {
			acknowledgment.release();
			return;
		}
		acknowledgment.acknowledge();
		this.acceptances.accepted();
	}

}

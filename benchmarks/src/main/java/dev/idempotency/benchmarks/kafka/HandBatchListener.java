package dev.idempotency.benchmarks.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.VariantApp;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Batch baseline ({@code hand-batch}): one transaction per batch, one multi-row insert-or-ignore of
 * the batch's distinct keys in sorted order (concurrent batches then never deadlock) {@code RETURNING}
 * the keys inserted ({@code ON CONFLICT DO NOTHING}; MariaDB: {@code INSERT IGNORE}), the business writes
 * for those keys, in account order ({@code hand-bulk-batch}: as JDBC batches).
 */
public class HandBatchListener {

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final LedgerTables tables;

	private final boolean bulkWrites;

	public HandBatchListener(JdbcTemplate jdbc, TransactionTemplate transactions, LedgerTables tables,
			@Value("${bench.bulk-writes}") boolean bulkWrites) {
		this.jdbc = jdbc;
		this.transactions = transactions;
		this.tables = tables;
		this.bulkWrites = bulkWrites;
	}

	@KafkaListener(id = VariantApp.LISTENER_ID, idIsGroup = false, topics = "${bench.topic}",
			autoStartup = "false")
	public void onBatch(List<ConsumerRecord<String, String>> recs) {
		this.transactions.executeWithoutResult((status) -> {
			Set<String> inserted = insertAll(new TreeSet<>(recs.stream().map(ConsumerRecord::key).toList()));
			List<ConsumerRecord<String, String>> fresh = new ArrayList<>(recs.size());
			for (ConsumerRecord<String, String> rec : recs) {
				if (inserted.remove(rec.key())) {
					fresh.add(rec);
				}
			}
			LedgerRecords.applyBatch(this.jdbc, fresh, this.bulkWrites);
		});
	}

	private Set<String> insertAll(Set<String> keys) {
		List<Object> args = new ArrayList<>(keys.size() * 5);
		Instant now = Instant.now();
		Object createdAt = this.tables.timestamp(now);
		Object expiresAt = this.tables.timestamp(now.plus(Duration.ofHours(1)));
		for (String key : keys) {
			args.addAll(List.of("hand", key, "COMPLETED", createdAt, expiresAt));
		}
		return new HashSet<>(this.jdbc.queryForList(this.tables.insertOrIgnoreReturningKeys(keys.size()),
				String.class, args.toArray()));
	}

}

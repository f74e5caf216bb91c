package dev.idempotency.benchmarks.kafka;

import java.util.List;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.benchmarks.support.VariantApp;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;

/**
 * The batch listener with the starter ({@code starter-batch}; {@code starter-bulk-batch} with the
 * business writes as JDBC batches): the method receives only the records claimed now.
 */
public class StarterBatchListener {

	private final JdbcTemplate jdbc;

	private final boolean bulkWrites;

	public StarterBatchListener(JdbcTemplate jdbc, @Value("${bench.bulk-writes}") boolean bulkWrites) {
		this.jdbc = jdbc;
		this.bulkWrites = bulkWrites;
	}

	@KafkaListener(id = VariantApp.LISTENER_ID, idIsGroup = false, topics = "${bench.topic}",
			autoStartup = "false")
	@Idempotent(key = "#element.key()")
	public void onBatch(List<ConsumerRecord<String, String>> recs) {
		LedgerRecords.applyBatch(this.jdbc, recs, this.bulkWrites);
	}

}

package dev.idempotency.benchmarks.kafka;

import java.util.List;

import dev.idempotency.annotation.Idempotent;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;

/**
 * The batch listener with the starter ({@code starter-batch}): the method receives only the records
 * claimed now.
 */
public class StarterBatchListener {

	private final JdbcTemplate jdbc;

	public StarterBatchListener(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@KafkaListener(id = KafkaListenerApp.LISTENER_ID, idIsGroup = false, topics = "${bench.topic}",
			autoStartup = "false")
	@Idempotent(key = "#element.key()")
	public void onBatch(List<ConsumerRecord<String, String>> recs) {
		LedgerRecords.applyInAccountOrder(this.jdbc, recs);
	}

}

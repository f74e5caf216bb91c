package dev.idempotency.benchmarks.kafka;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.benchmarks.support.VariantApp;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;

/** The record listener with the starter ({@code starter-record}): {@code @Idempotent} on the record's key. */
public class StarterRecordListener {

	private final JdbcTemplate jdbc;

	public StarterRecordListener(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@KafkaListener(id = VariantApp.LISTENER_ID, idIsGroup = false, topics = "${bench.topic}",
			autoStartup = "false")
	@Idempotent(key = "#rec.key()")
	public void onRecord(ConsumerRecord<String, String> rec) {
		LedgerRecords.apply(this.jdbc, rec);
	}

}

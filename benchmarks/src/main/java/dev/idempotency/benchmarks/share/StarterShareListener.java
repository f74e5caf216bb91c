package dev.idempotency.benchmarks.share;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.benchmarks.support.VariantApp;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;

/**
 * The share-group listener with the starter ({@code starter}): {@code @Idempotent} on the record's
 * key, the container in spring-kafka's default {@code ShareAckMode.EXPLICIT} (the record is accepted
 * when the listener returns, after the interceptor's commit).
 */
public class StarterShareListener {

	private final JdbcTemplate jdbc;

	public StarterShareListener(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@KafkaListener(id = VariantApp.LISTENER_ID, topics = "${bench.topic}", groupId = "${bench.group}",
			containerFactory = ShareListenerApp.FACTORY, concurrency = "${bench.concurrency}", autoStartup = "false")
	@Idempotent(key = "#rec.key()")
	public void onRecord(ConsumerRecord<String, String> rec) {
		ShareLedger.apply(this.jdbc, rec);
	}

}

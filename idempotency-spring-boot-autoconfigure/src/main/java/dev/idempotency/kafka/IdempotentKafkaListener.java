package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;

/**
 * An {@code @Idempotent} method that a {@code @KafkaListener} calls, with the topics it reads and how
 * long its keys are kept.
 *
 * @param method {@code SimpleClassName#method}
 * @param retention the dedup retention of the method's keys ({@code @Idempotent(retention)}, else
 * {@code idempotency.retention})
 * @param topics the names of the topics it reads (topic patterns excluded)
 * @since 0.1.0
 */
public record IdempotentKafkaListener(String method, Duration retention, List<String> topics) {

	public IdempotentKafkaListener {
		topics = List.copyOf(topics);
	}

}

package dev.idempotency.benchmarks.outbox;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When the broker acknowledged each message of one relaying application, by message id
 * ({@code System.nanoTime()}), written by its {@link TimingKafkaOutboxSender}.
 */
final class AckTimes {

	private final Map<String, Long> byMessageId = new ConcurrentHashMap<>();

	/** Notes the first acknowledgement of {@code messageId}, now. */
	void acknowledged(String messageId) {
		this.byMessageId.putIfAbsent(messageId, System.nanoTime());
	}

	/** The live view of the acknowledgement times noted so far. */
	Map<String, Long> byMessageId() {
		return this.byMessageId;
	}

	void forget(Collection<String> messageIds) {
		messageIds.forEach(this.byMessageId::remove);
	}

}

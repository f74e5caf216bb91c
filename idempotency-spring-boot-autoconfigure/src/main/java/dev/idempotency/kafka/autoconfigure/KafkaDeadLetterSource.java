package dev.idempotency.kafka.autoconfigure;

import dev.idempotency.autoconfigure.actuate.DeadLetterSource;
import dev.idempotency.kafka.DeadLetterRedrive;

/**
 * Kafka dead-letter topics for the endpoint, through {@link DeadLetterRedrive}.
 */
final class KafkaDeadLetterSource implements DeadLetterSource {

	private final DeadLetterRedrive redrive;

	KafkaDeadLetterSource(DeadLetterRedrive redrive) {
		this.redrive = redrive;
	}

	@Override
	public String transport() {
		return "kafka";
	}

	@Override
	public Object preview(String name, Query query) {
		return this.redrive.preview(name, kafkaQuery(query));
	}

	@Override
	public Object redrive(String name, Query query) {
		return this.redrive.redrive(name, kafkaQuery(query));
	}

	private static DeadLetterRedrive.Query kafkaQuery(Query query) {
		Long fromOffset = query.fromOffset();
		return new DeadLetterRedrive.Query((fromOffset != null) ? fromOffset : 0, query.partition(), query.limit());
	}

}

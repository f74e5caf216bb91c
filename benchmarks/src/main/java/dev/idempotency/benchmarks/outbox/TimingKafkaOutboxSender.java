package dev.idempotency.benchmarks.outbox;

import java.util.concurrent.CompletableFuture;

import dev.idempotency.outbox.kafka.KafkaOutboxSender;
import dev.idempotency.outbox.OutboxMessage;

import org.springframework.kafka.core.KafkaOperations;

/** The starter's Kafka sender, noting in {@link AckTimes} when the broker acknowledged each message. */
class TimingKafkaOutboxSender extends KafkaOutboxSender {

	private final AckTimes ackTimes;

	TimingKafkaOutboxSender(KafkaOperations<?, ?> kafka, AckTimes ackTimes) {
		super(kafka);
		this.ackTimes = ackTimes;
	}

	@Override
	public CompletableFuture<?> send(String topic, OutboxMessage message) {
		CompletableFuture<?> future = super.send(topic, message);
		future.whenComplete((result, ex) -> {
			if (ex == null) {
				this.ackTimes.acknowledged(message.messageId());
			}
		});
		return future;
	}

}

package dev.idempotency.kafka;

import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.core.DeliveryListener;
import dev.idempotency.support.Listeners;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;

/**
 * Publishes a record that could not be processed to {@code <topic><suffix>} with spring-kafka's
 * {@link DeadLetterPublishingRecoverer} (exception headers included), waits for the broker's
 * acknowledgement, and only then lets the error handler commit the original offset. A failed
 * publication throws, so the original is retried rather than lost. The dead-letter partition is
 * chosen by the producer, so the dead-letter topic needs no particular partition count.
 *
 * @since 0.1.0
 */
public class DeadLetterRecoverer implements ConsumerRecordRecoverer {

	private static final Log logger = LogFactory.getLog(DeadLetterRecoverer.class);

	private final DeadLetterPublishingRecoverer publisher;

	private final String suffix;

	private final Supplier<List<DeliveryListener>> listeners;

	public DeadLetterRecoverer(KafkaOperations<?, ?> template, String suffix,
			Supplier<List<DeliveryListener>> listeners) {
		this.suffix = suffix;
		this.listeners = listeners;
		this.publisher = new DeadLetterPublishingRecoverer(template,
				(record, ex) -> new TopicPartition(record.topic() + suffix, -1));
	}

	@Override
	public void accept(ConsumerRecord<?, ?> record, Exception exception) {
		this.publisher.accept(record, exception);
		String destination = record.topic() + this.suffix;
		logger.warn("Dead-lettered " + record.topic() + "-" + record.partition() + "@" + record.offset() + " to "
				+ destination + ": " + NestedExceptionUtils.getMostSpecificCause(exception));
		Listeners.notifyEach(this.listeners.get(),
				(listener) -> listener.onDeadLettered(record.topic(), destination, exception), "dead letter");
	}

}

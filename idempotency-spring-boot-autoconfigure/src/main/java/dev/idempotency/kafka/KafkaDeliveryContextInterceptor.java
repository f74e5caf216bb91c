package dev.idempotency.kafka;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.MessageAcknowledger;
import dev.idempotency.core.MessageIds;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.RecordInterceptor;

/**
 * Binds the record being delivered to the consumer thread as the {@link DeliveryContext}, so that
 * {@code @Idempotent} listeners see {@code #record}, {@code #headers} (last value of each header,
 * UTF-8) and the message id ({@value DeliveryContext#MESSAGE_ID_HEADER} header, else
 * {@code ~kafka:topic:partition:offset}; see {@link MessageIds}), with the consumer group as the
 * default namespace. Cleared after every record, whatever its outcome. A record that succeeds resumes
 * the listener if its consumer thread paused it (fail-closed).
 *
 * @since 0.1.0
 */
public class KafkaDeliveryContextInterceptor implements RecordInterceptor<Object, Object> {

	/** The transport's name in the message id it derives: {@code ~kafka:topic:partition:offset}. */
	static final String TRANSPORT = "kafka";

	@Override
	public @Nullable ConsumerRecord<Object, Object> intercept(ConsumerRecord<Object, Object> record,
			Consumer<Object, Object> consumer) {
		DeliveryContextHolder.set(deliveryOf(record, groupId(consumer)));
		return record;
	}

	@Override
	public void success(ConsumerRecord<Object, Object> record, Consumer<Object, Object> consumer) {
		// The record got through: resumes the listener if this consumer paused it (fail-closed).
		FailClosedPause.deliveryGotThrough();
	}

	@Override
	public void afterRecord(ConsumerRecord<Object, Object> record, Consumer<Object, Object> consumer) {
		DeliveryContextHolder.clear();
	}

	@Override
	public void clearThreadState(Consumer<?, ?> consumer) {
		DeliveryContextHolder.clear();
	}

	/**
	 * Describes one record.
	 * @param record the record
	 * @param groupId the consumer group, or {@code null}
	 * @return its delivery context, without an acknowledger (the container or the listener's
	 * {@code Acknowledgment} acknowledges)
	 */
	public static DeliveryContext deliveryOf(ConsumerRecord<?, ?> record, @Nullable String groupId) {
		return deliveryOf(record, groupId, null);
	}

	/**
	 * Describes one record acknowledged by the engine after commit (a share group's
	 * {@code ShareAcknowledgment}).
	 * @param record the record
	 * @param groupId the consumer group, or {@code null}
	 * @param acknowledger acknowledges the record after commit, or {@code null}
	 * @return its delivery context
	 */
	public static DeliveryContext deliveryOf(ConsumerRecord<?, ?> record, @Nullable String groupId,
			@Nullable MessageAcknowledger acknowledger) {
		return new DeliveryContext(messageId(record), groupId,
				Map.of("record", record, "headers", new RecordHeaderValues(record.headers())), acknowledger, List.of());
	}

	/**
	 * The record's message id: the {@value DeliveryContext#MESSAGE_ID_HEADER} header (written by
	 * the outbox relay) if present and not empty, else {@code ~kafka:topic:partition:offset}, which
	 * identifies a record but not a producer's re-send. A header that starts with {@code ~} gets a
	 * second one, so no header can equal a derived id ({@link MessageIds}).
	 * @param record the record
	 * @return the message id
	 */
	public static String messageId(ConsumerRecord<?, ?> record) {
		Header header = record.headers().lastHeader(DeliveryContext.MESSAGE_ID_HEADER);
		if (header != null && header.value() != null && header.value().length > 0) {
			return MessageIds.ofProducer(new String(header.value(), StandardCharsets.UTF_8));
		}
		return MessageIds.ofLogPosition(TRANSPORT, record.topic(), record.partition(), record.offset());
	}

	static @Nullable String groupId(Consumer<?, ?> consumer) {
		try {
			return consumer.groupMetadata().groupId();
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

}

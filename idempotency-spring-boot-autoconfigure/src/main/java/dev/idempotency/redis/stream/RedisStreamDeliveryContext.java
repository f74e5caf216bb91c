package dev.idempotency.redis.stream;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.MessageFields;
import dev.idempotency.core.MessageIds;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.stream.MapRecord;

/**
 * Describes a stream entry as the {@link DeliveryContext} of its delivery: message id, the group
 * as namespace, the SpEL variables {@code #record}, {@code #headers} (the fields),
 * {@code #recordId} and {@code #stream} (and {@code #traceparent} when the outbox relay sent the
 * publisher's trace context), and the entry's acknowledger.
 */
final class RedisStreamDeliveryContext {

	/** The transport's name in the message id it derives: {@code ~redis-stream:<stream>:<record id>}. */
	static final String TRANSPORT = "redis-stream";

	private RedisStreamDeliveryContext() {
	}

	/**
	 * Describes one entry as the delivery context.
	 * @param record the entry
	 * @param group the consumer group (the default namespace)
	 * @param acknowledger acknowledges the entry, or {@code null} when the entry is acknowledged
	 * with the others of its {@linkplain TransactionBatchingReads transaction batch}
	 * @return the delivery context
	 */
	static DeliveryContext of(MapRecord<String, String, String> record, String group,
			@Nullable RedisStreamAcknowledger acknowledger) {
		Map<String, Object> variables = new LinkedHashMap<>();
		variables.put("record", record);
		variables.put("headers", record.getValue());
		variables.put("recordId", record.getId().getValue());
		variables.put("stream", record.getStream());
		String traceparent = record.getValue().get(MessageFields.TRACEPARENT);
		if (traceparent != null && !traceparent.isEmpty()) {
			// The publisher's trace context, for a listener that continues the trace itself.
			variables.put(MessageFields.TRACEPARENT, traceparent);
		}
		return new DeliveryContext(messageId(record), group, variables, acknowledger, List.of());
	}

	/**
	 * The entry's message id: the {@value MessageFields#MESSAGE_ID} field (written by the outbox
	 * relay) if present and not empty, else {@code ~redis-stream:<stream>:<record id>}, which
	 * identifies an entry but not a producer's re-send. A field that starts with {@code ~} gets a
	 * second one, so no field can equal a derived id ({@link MessageIds}).
	 * @param record the entry
	 * @return the message id
	 */
	static String messageId(MapRecord<String, String, String> record) {
		String field = record.getValue().get(MessageFields.MESSAGE_ID);
		if (field != null && !field.isEmpty()) {
			return MessageIds.ofProducer(field);
		}
		return MessageIds.ofTransport(TRANSPORT, record.getStream() + ":" + record.getId().getValue());
	}

}

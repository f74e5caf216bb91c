package dev.idempotency.redis.stream;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Publishes given-up entries of one stream to its dead-letter stream ({@code <stream><suffix>}):
 * the entry's own fields plus the {@code dlq-*} fields, then acknowledges the entry in its group.
 * The field names are public as {@code RedisStreamListenerContainer.DLQ_*}.
 */
final class DeadLetterStream {

	/** Field of a dead-letter entry: the exception class and message of the last failure. */
	static final String ERROR_FIELD = "dlq-error";

	/** Field of a dead-letter entry: the stream the entry came from. */
	static final String SOURCE_FIELD = "dlq-source";

	/** Field of a dead-letter entry: the entry's record id in its source stream. */
	static final String ID_FIELD = "dlq-id";

	/** Field of a dead-letter entry: the consumer group that gave it up. */
	static final String GROUP_FIELD = "dlq-group";

	/** Field of a dead-letter entry: how often it had been delivered. */
	static final String DELIVERY_COUNT_FIELD = "dlq-delivery-count";

	private static final int MAX_ERROR_LENGTH = 2000;

	// The container's category, as before the split: logging configuration keeps working.
	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	private final StringRedisTemplate redis;

	private final StreamBinding binding;

	private final String destination;

	/**
	 * Creates the publisher of one stream's dead letters.
	 * @param redis the Redis of the stream
	 * @param binding the stream and group
	 * @param suffix appended to the stream key to name the dead-letter stream
	 */
	DeadLetterStream(StringRedisTemplate redis, StreamBinding binding, String suffix) {
		this.redis = redis;
		this.binding = binding;
		this.destination = binding.stream() + suffix;
	}

	/**
	 * Writes the entry to the dead-letter stream, then (only if that succeeded) acknowledges it, and
	 * tells the listeners.
	 * @param record the entry
	 * @param deliveryCount how often it had been delivered
	 * @param cause why it is given up
	 * @throws RuntimeException if Redis fails; the entry then stays pending (unless only the XACK
	 * failed, in which case it is dead-lettered again later)
	 */
	void publish(MapRecord<String, String, String> record, long deliveryCount, Throwable cause) {
		String stream = this.binding.stream();
		String id = record.getId().getValue();
		Map<String, String> fields = new LinkedHashMap<>(record.getValue());
		fields.put(SOURCE_FIELD, stream);
		fields.put(ID_FIELD, id);
		fields.put(GROUP_FIELD, this.binding.group());
		fields.put(DELIVERY_COUNT_FIELD, String.valueOf(deliveryCount));
		fields.put(ERROR_FIELD, describe(cause));
		this.redis.opsForStream().add(StreamRecords.newRecord().in(this.destination).ofMap(fields));
		this.redis.opsForStream().acknowledge(stream, this.binding.group(), id);
		logger.warn("Dead-lettered entry " + id + " of stream '" + stream + "' to '" + this.destination + "' after "
				+ deliveryCount + " deliveries: " + NestedExceptionUtils.getMostSpecificCause(cause));
		this.binding.notifyListeners((listener) -> listener.onDeadLettered(stream, this.destination, cause));
	}

	private static String describe(Throwable cause) {
		Throwable specific = NestedExceptionUtils.getMostSpecificCause(cause);
		String description = specific.getClass().getName()
				+ ((specific.getMessage() != null) ? ": " + specific.getMessage() : "");
		return (description.length() > MAX_ERROR_LENGTH) ? description.substring(0, MAX_ERROR_LENGTH) : description;
	}

}

package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.NonRetryableIdempotencyException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.connection.RedisStreamCommands.XClaimOptions;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Decides what becomes of an entry whose delivery did not succeed: it stays pending to be claimed
 * again after min-idle, or it is dead-lettered.
 * <ul>
 * <li>Not retryable ({@link NonRetryableIdempotencyException}, {@link RedisStreamPayloadException})
 * or failed on its max-deliveries-th delivery: dead-lettered at once.</li>
 * <li>In progress elsewhere ({@link IdempotencyInProgressException}): stays pending and its delivery
 * counter is set back, so that waiting for another consumer's lease never dead-letters it.</li>
 * <li>Delivered more than max-deliveries times already (its last attempt failed in another consumer
 * or crashed): dead-lettered without another attempt, with the last failure seen here if any.</li>
 * <li>Held through an outage until the container stopped ({@link #abandoned}): stays pending and its
 * delivery counter is set back, as for an entry in progress elsewhere.</li>
 * </ul>
 * Infrastructure failures never reach this policy while fail-closed is on: the
 * {@link StreamEntryDispatcher} holds those entries instead.
 * A dead letter that cannot be written is logged and the entry stays pending. No method throws.
 */
final class StreamFailurePolicy {

	/** Bounds the failures remembered for entries that are pending and may exhaust their deliveries. */
	private static final int REMEMBERED_FAILURES = 10_000;

	// The container's category, as before the split: logging configuration keeps working.
	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	private final StringRedisTemplate redis;

	private final StreamBinding binding;

	private final DeadLetterStream deadLetters;

	private final int maxDeliveries;

	private final Duration minIdle;

	private final Map<String, Throwable> lastFailures = Collections
		.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {

			private static final long serialVersionUID = 1L;

			@Override
			protected boolean removeEldestEntry(Map.Entry<String, Throwable> eldest) {
				return size() > REMEMBERED_FAILURES;
			}

		});

	/**
	 * Creates the policy of one stream and group.
	 * @param redis the Redis of the stream
	 * @param binding the stream and group
	 * @param deadLetters where given-up entries go
	 * @param settings max-deliveries and min-idle
	 */
	StreamFailurePolicy(StringRedisTemplate redis, StreamBinding binding, DeadLetterStream deadLetters,
			RedisStreamSettings settings) {
		this.redis = redis;
		this.binding = binding;
		this.deadLetters = deadLetters;
		this.maxDeliveries = settings.maxDeliveries();
		this.minIdle = settings.minIdle();
	}

	/**
	 * Whether an entry has been delivered more often than max-deliveries allows, so that it is
	 * {@linkplain #exhausted given up} instead of delivered.
	 * @param deliveryCount how often it has been delivered, this time included
	 * @return {@code true} to give it up
	 */
	boolean isExhausted(long deliveryCount) {
		return deliveryCount > this.maxDeliveries;
	}

	/**
	 * Gives up an entry that {@linkplain #isExhausted is exhausted}.
	 * @param record the entry
	 * @param deliveryCount how often it has been delivered
	 */
	void exhausted(MapRecord<String, String, String> record, long deliveryCount) {
		Throwable last = this.lastFailures.get(record.getId().getValue());
		deadLetter(record, deliveryCount, (last != null) ? last
				: new DeliveriesExhaustedException("Gave up after " + deliveryCount + " deliveries (max-deliveries "
						+ this.maxDeliveries + "); the last attempt failed elsewhere or did not finish"));
	}

	/**
	 * Gives up an entry whose argument cannot be resolved: a payload that is missing or cannot be
	 * converted does not get better by waiting.
	 * @param record the entry
	 * @param deliveryCount how often it has been delivered
	 * @param ex why the argument could not be resolved
	 */
	void unreadable(MapRecord<String, String, String> record, long deliveryCount, RuntimeException ex) {
		deadLetter(record, deliveryCount, ex);
	}

	/**
	 * Forgets an entry's earlier failures once it was delivered successfully.
	 * @param recordId the entry's id
	 */
	void succeeded(String recordId) {
		this.lastFailures.remove(recordId);
	}

	/**
	 * Handles a failed delivery: keeps the entry pending or dead-letters it.
	 * @param record the entry
	 * @param consumer the consumer that owns it
	 * @param deliveryCount how often it has been delivered, this time included
	 * @param ex what the listener method threw
	 */
	void failed(MapRecord<String, String, String> record, String consumer, long deliveryCount, Throwable ex) {
		String id = record.getId().getValue();
		if (ex instanceof IdempotencyInProgressException) {
			// Not a failed attempt: the key is being processed elsewhere. Keep the delivery counter
			// so that waiting for another consumer's lease never dead-letters the entry.
			logger.debug("Entry " + id + " of stream '" + this.binding.stream() + "' is in progress elsewhere; retried after "
					+ this.minIdle);
			resetDeliveryCount(id, consumer, deliveryCount);
			return;
		}
		if (isNotRetryable(ex) || deliveryCount >= this.maxDeliveries) {
			deadLetter(record, deliveryCount, ex);
			return;
		}
		this.lastFailures.put(id, ex);
		logger.warn("Entry " + id + " of stream '" + this.binding.stream() + "' failed (delivery " + deliveryCount
				+ " of " + this.maxDeliveries + "); it stays pending and is delivered again after " + this.minIdle
				+ ": " + NestedExceptionUtils.getMostSpecificCause(ex));
	}

	/**
	 * Leaves an entry pending that was held through an outage when the container stopped: the
	 * outage was no delivery, so its counter is set back (if Redis answers) before a later read or
	 * claim counts one.
	 * @param record the entry
	 * @param consumer the consumer that holds it
	 * @param deliveryCount how often it had been delivered, the held delivery included
	 */
	void abandoned(MapRecord<String, String, String> record, String consumer, long deliveryCount) {
		String id = record.getId().getValue();
		logger.info("Entry " + id + " of stream '" + this.binding.stream() + "' was held through an outage until "
				+ "the container stopped; it stays pending and is delivered again later");
		resetDeliveryCount(id, consumer, deliveryCount);
	}

	private void resetDeliveryCount(String id, String consumer, long deliveryCount) {
		try {
			this.redis.execute((RedisCallback<List<RecordId>>) (connection) -> connection.streamCommands()
				.xClaimJustId(this.binding.streamKey(), this.binding.group(), consumer,
						XClaimOptions.minIdle(Duration.ZERO).ids(id).retryCount(Math.max(0, deliveryCount - 1))));
		}
		catch (RuntimeException reset) {
			logger.debug("Could not reset the delivery counter of entry " + id, reset);
		}
	}

	private static boolean isNotRetryable(Throwable ex) {
		return ex instanceof NonRetryableIdempotencyException || ex instanceof RedisStreamPayloadException;
	}

	private void deadLetter(MapRecord<String, String, String> record, long deliveryCount, Throwable cause) {
		try {
			this.deadLetters.publish(record, deliveryCount, cause);
			this.lastFailures.remove(record.getId().getValue());
		}
		catch (RuntimeException ex) {
			logger.error("Could not dead-letter entry " + record.getId() + " of stream '" + this.binding.stream()
					+ "'; it stays pending and is tried again after " + this.minIdle, ex);
		}
	}

}

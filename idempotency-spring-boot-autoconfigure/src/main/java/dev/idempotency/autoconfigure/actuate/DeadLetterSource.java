package dev.idempotency.autoconfigure.actuate;

import org.jspecify.annotations.Nullable;

/**
 * The dead letters of one transport, as the {@code idempotency} endpoint lists and re-drives them
 * ({@code dead-letters/{transport}/{name}}). Implemented for Kafka dead-letter topics and Redis
 * dead-letter streams on top of their Java APIs; the endpoint itself needs neither Kafka nor Redis
 * on the class path.
 *
 * @since 0.2.0
 */
public interface DeadLetterSource {

	/**
	 * The path segment this source answers to.
	 * @return {@code kafka} or {@code redis}
	 */
	String transport();

	/**
	 * What a re-drive would send, without sending it (a dry run).
	 * @param name the original topic or stream (not its dead-letter topic or stream)
	 * @param query which dead letters
	 * @return a description of the dead letters, serializable as JSON
	 */
	Object preview(String name, Query query);

	/**
	 * Re-drives dead letters to where they came from.
	 * @param name the original topic or stream
	 * @param query which dead letters
	 * @return a description of what was sent, serializable as JSON
	 */
	Object redrive(String name, Query query);

	/**
	 * Which dead letters: the parameters of the endpoint's request; each transport uses its own.
	 * @param limit the most dead letters, at least 1
	 * @param fromOffset Kafka: the first offset to read in each partition, or {@code null} for the
	 * beginning
	 * @param partition Kafka: only this partition of the dead-letter topic, or {@code null} for all
	 * @param fromId Redis: the first record id to read, or {@code null} for the beginning
	 */
	record Query(int limit, @Nullable Long fromOffset, @Nullable Integer partition, @Nullable String fromId) {
	}

}

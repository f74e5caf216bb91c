package dev.idempotency.benchmarks.jmh;

import dev.idempotency.benchmarks.support.Message;

/**
 * A variant of the JMH suite: one way of consuming a message at most once in effect.
 * Implementations are shared by all benchmark threads and must be thread-safe.
 */
public interface DedupVariant extends AutoCloseable {

	/**
	 * Handles one delivery.
	 * @return {@code true} if the business transaction ran and committed, {@code false} if the message
	 * was skipped as a duplicate
	 * @throws RuntimeException on failure; the harness then redelivers the same message, as a broker
	 * would
	 */
	boolean process(Message message);

	/**
	 * Whether this variant deduplicates. The baseline without deduplication is verified against
	 * "every delivery applied" instead of "every unique message applied once".
	 */
	default boolean deduplicates() {
		return true;
	}

	/** Releases connections and contexts; called once after the run. */
	@Override
	default void close() {
	}

}

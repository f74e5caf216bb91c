package dev.idempotency.outbox;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The state of a transactional outbox's table, for gauges and health checks. Each call reads the
 * table, so callers should not call it more often than a metrics scrape does.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface OutboxBacklog {

	/**
	 * Reads the outbox table now.
	 * @return how many rows wait and for how long
	 * @throws RuntimeException if the table cannot be read
	 */
	Snapshot snapshot();

	/**
	 * The outbox table at one moment.
	 *
	 * @param pending rows committed and not yet sent (including rows being sent and rows waiting
	 * for their next attempt)
	 * @param dead rows that used up their attempts and wait to be re-driven
	 * @param oldestPendingAge age of the oldest pending row, {@code null} when none is pending
	 */
	record Snapshot(long pending, long dead, @Nullable Duration oldestPendingAge) {

	}

}

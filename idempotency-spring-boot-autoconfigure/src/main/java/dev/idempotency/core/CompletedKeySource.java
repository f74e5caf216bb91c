package dev.idempotency.core;

import java.time.Instant;
import java.util.function.Consumer;

/**
 * A store that can list the keys it holds as completed, for a local duplicate filter that rebuilds
 * itself at start-up. Implemented by the JDBC store.
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface CompletedKeySource {

	/**
	 * Streams the keys recorded since {@code since}, in pages, so that memory stays bounded whatever
	 * the table holds. Runs outside any business transaction.
	 * @param since the oldest record to include (by its creation time)
	 * @param pageSize how many keys one query returns
	 * @param action called for each key, on the calling thread
	 * @return how many keys were streamed
	 */
	long forEachCompletedSince(Instant since, int pageSize, Consumer<IdempotencyKey> action);

}

package dev.idempotency.core;

import java.time.Duration;

/**
 * Told what the duplicate filters answered, for metrics. Exceptions thrown by a listener are logged
 * and otherwise ignored.
 *
 * @since 0.2.0
 */
public interface DuplicateFilterListener {

	/**
	 * Called for each answer a filter gave.
	 * @param filter the filter's name
	 * @param answer its answer
	 */
	default void onFilterAnswer(String filter, DuplicateFilter.Answer answer) {
	}

	/**
	 * Called when a filter said {@link DuplicateFilter.Answer#MAYBE} and the store then claimed the
	 * key as new: a false positive, confirmed by the store.
	 * @param filter the filter's name
	 */
	default void onFilterFalsePositive(String filter) {
	}

	/**
	 * Called when a filter finished rebuilding itself from the store.
	 * @param filter the filter's name
	 * @param keys how many keys it learned
	 * @param took how long the rebuild took
	 */
	default void onFilterRebuilt(String filter, long keys, Duration took) {
	}

}

package dev.idempotency.filter;

import dev.idempotency.core.DuplicateFilter;

/**
 * A local filter that a {@link FilterRebuild} fills from the store: while the rebuild runs it answers
 * only {@code UNKNOWN}, since it has not seen the keys yet, and it learns every commit meanwhile.
 *
 * @since 0.2.0
 */
public interface RebuildableFilter extends DuplicateFilter {

	/** The rebuild began: answer {@code UNKNOWN} until it finishes. */
	void rebuildStarted();

	/** The rebuild finished: answer from what was learned. */
	void rebuildFinished();

	/**
	 * Whether the filter answers from what it learned.
	 * @return {@code false} while a rebuild runs
	 */
	boolean ready();

}

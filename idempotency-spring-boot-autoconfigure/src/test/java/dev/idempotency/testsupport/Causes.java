package dev.idempotency.testsupport;

import org.jspecify.annotations.Nullable;

/**
 * Finds an exception of a type in a failure's cause chain, as start-up failures wrap the one a test
 * is about.
 */
public final class Causes {

	private Causes() {
	}

	/**
	 * The first exception of {@code type} in the cause chain of {@code failure}.
	 * @param <T> the type
	 * @param failure the failure, possibly {@code null}
	 * @param type the type to find
	 * @return the exception
	 * @throws AssertionError if there is none
	 */
	public static <T extends Throwable> T causeOfType(@Nullable Throwable failure, Class<T> type) {
		for (Throwable candidate = failure; candidate != null; candidate = candidate.getCause()) {
			if (type.isInstance(candidate)) {
				return type.cast(candidate);
			}
		}
		throw new AssertionError("No " + type.getName() + " in the causes of " + failure, failure);
	}

}

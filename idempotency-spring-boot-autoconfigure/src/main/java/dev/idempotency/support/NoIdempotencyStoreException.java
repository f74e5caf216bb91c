package dev.idempotency.support;

import java.util.List;

/**
 * No usable {@code IdempotencyStore} for the {@code @Idempotent} methods of the application.
 *
 * @since 0.1.0
 */
public class NoIdempotencyStoreException extends IllegalStateException {

	private final List<String> methods;

	private final long candidates;

	/**
	 * Creates the exception.
	 * @param methods the annotated methods that have no store, possibly empty when unknown
	 * @param candidates how many store beans exist (0: none; more than 1: ambiguous)
	 */
	public NoIdempotencyStoreException(List<String> methods, long candidates) {
		super(((candidates == 0) ? "No IdempotencyStore is configured" : candidates + " IdempotencyStore beans "
				+ "exist and none is primary") + (methods.isEmpty() ? "" : " for " + String.join(", ", methods)));
		this.methods = List.copyOf(methods);
		this.candidates = candidates;
	}

	public List<String> getMethods() {
		return this.methods;
	}

	public long getCandidates() {
		return this.candidates;
	}

}

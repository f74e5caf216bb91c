package dev.idempotency.core;

import org.jspecify.annotations.Nullable;

/**
 * Captures the current trace context as a W3C {@code traceparent}
 * ({@code 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>}), so that the outbox can store it
 * with a message and the relay send it on. Implemented over a tracer when one is on the class path;
 * the outbox depends on this interface only.
 *
 * @since 0.2.0
 * @see MessageFields#TRACEPARENT
 */
@FunctionalInterface
public interface TraceContextCapture {

	/** Captures nothing. */
	TraceContextCapture NONE = () -> null;

	/**
	 * The current trace context on the calling thread.
	 * @return the {@code traceparent}, at most 55 characters, or {@code null} when no span is
	 * current; never throws
	 */
	@Nullable String traceparent();

}

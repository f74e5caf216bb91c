package dev.idempotency.core;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Turns an invocation of an {@code @Idempotent} method into the key to claim.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface KeyResolver {

	/**
	 * Resolves the key of one invocation.
	 * @param expression the annotation's {@code key}, possibly empty
	 * @param method the invoked method
	 * @param args the arguments
	 * @param target the target object
	 * @param delivery the current delivery, or {@code null} when the method is not called by a
	 * transport adapter
	 * @return the key, never blank
	 * @throws InvalidIdempotencyKeyException if the key is missing, blank, or cannot be evaluated;
	 * retrying cannot fix it
	 */
	String resolve(String expression, Method method, @Nullable Object[] args, Object target,
			@Nullable DeliveryContext delivery);

	/**
	 * Checks at start-up, without a message, that {@code expression} can be evaluated at all, so
	 * that a typo fails start-up instead of rejecting every message. The default checks nothing.
	 * @param expression the annotation's {@code key}, possibly empty
	 * @param method the annotated method
	 * @throws IllegalStateException if the expression can never be evaluated, with the method, the
	 * expression and the reason
	 * @since 0.2.0
	 */
	default void validate(String expression, Method method) {
	}

}

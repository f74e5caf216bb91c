package dev.idempotency.core;

import org.jspecify.annotations.Nullable;

/**
 * Binds the current {@link DeliveryContext} to the consumer thread. Transport adapters set it before
 * invoking the listener and clear it afterwards, in a {@code finally} block.
 *
 * @since 0.1.0
 */
public final class DeliveryContextHolder {

	private static final ThreadLocal<DeliveryContext> CURRENT = new ThreadLocal<>();

	private DeliveryContextHolder() {
	}

	public static @Nullable DeliveryContext current() {
		return CURRENT.get();
	}

	public static void set(DeliveryContext context) {
		CURRENT.set(context);
	}

	public static void clear() {
		CURRENT.remove();
	}

}

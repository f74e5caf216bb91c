package dev.idempotency.support;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.util.StringValueResolver;
import org.springframework.util.function.SingletonSupplier;

/**
 * The {@link IdempotentMethod} of each {@code @Idempotent} method, read from its annotation on
 * the first call and kept for the life of the interceptor. Thread-safe.
 *
 * @since 0.2.0
 */
final class IdempotentMethodCache {

	private final Map<MethodClassKey, IdempotentMethod> methods = new ConcurrentHashMap<>(64);

	private final StringValueResolver placeholders;

	private final @Nullable String defaultFingerprint;

	private final Supplier<MessageTransports> transports;

	/**
	 * Creates an empty cache.
	 * @param placeholders resolves {@code ${...}} in annotation attributes
	 * @param defaultFingerprint the fingerprint expression of methods whose annotation sets none
	 * @param transports the registered transports, looked up at the first miss
	 */
	IdempotentMethodCache(StringValueResolver placeholders, @Nullable String defaultFingerprint,
			Supplier<MessageTransports> transports) {
		this.placeholders = placeholders;
		this.defaultFingerprint = defaultFingerprint;
		this.transports = SingletonSupplier.of(transports);
	}

	/**
	 * Returns the metadata of {@code method} invoked on {@code targetClass}.
	 * @param method the invoked method, possibly an interface or bridge method
	 * @param targetClass the class of the target object
	 * @return the metadata
	 * @throws IllegalStateException if the method's annotation is unusable (see
	 * {@link IdempotentMethod#of})
	 */
	IdempotentMethod get(Method method, Class<?> targetClass) {
		MethodClassKey key = new MethodClassKey(method, targetClass);
		IdempotentMethod cached = this.methods.get(key);
		// Read before computing: a capturing lambda on every message is garbage on the hot path.
		return (cached != null) ? cached : this.methods.computeIfAbsent(key, (missing) -> IdempotentMethod
			.of(AopUtils.getMostSpecificMethod(method, targetClass), targetClass, this.transports.get(),
					this.placeholders, this.defaultFingerprint));
	}

}

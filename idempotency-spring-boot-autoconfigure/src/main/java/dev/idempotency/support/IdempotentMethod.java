package dev.idempotency.support;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.annotation.IdempotencyMode;
import dev.idempotency.annotation.OnDuplicate;
import dev.idempotency.core.DeliveryContext;
import org.jspecify.annotations.Nullable;

import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.StringValueResolver;

/**
 * What the interceptor needs to know about one {@code @Idempotent} method, read once from its
 * annotation.
 *
 * @param keyExpression the key expression, possibly empty
 * @param namespace the explicit namespace, or {@code null} to take the delivery's
 * @param fallbackNamespace {@code SimpleClassName#method}, used when neither is set
 * @param listenerId the id of the method's listener, read through its transport
 * ({@code @KafkaListener(id)}, {@code @RedisStreamListener(id)}), or {@code null} when it names none
 * @param retention how long processed keys are kept, or {@code null} for the default
 * @param lease how long an in-progress claim holds the key, or {@code null} for the default
 * @param onDuplicate the duplicate policy
 * @param storeName the store bean name, empty for the default store
 * @param skippedValue what a skipped invocation returns
 * @param batchParameter index of the first {@code List} parameter, which receives a batch when the
 * delivery is one; {@code -1} if there is none
 * @param mode the annotation's mode
 * @param fingerprintExpression the expression of the payload whose fingerprint is recorded with
 * the key (the annotation's, else {@code idempotency.fingerprint}), or {@code null} for none
 * @since 0.1.0
 */
public record IdempotentMethod(String keyExpression, @Nullable String namespace, String fallbackNamespace,
		@Nullable String listenerId, @Nullable Duration retention, @Nullable Duration lease, OnDuplicate onDuplicate,
		String storeName, @Nullable Object skippedValue, int batchParameter, IdempotencyMode mode,
		@Nullable String fingerprintExpression) {

	/**
	 * Reads the annotation of {@code method}.
	 * @param method the method, possibly a bridge or an interface method
	 * @param targetClass the class the method is invoked on
	 * @param transports the registered transports, whose listener annotations name the method's
	 * listener
	 * @param placeholders resolves {@code ${...}} in the annotation's strings
	 * @return the metadata
	 * @throws IllegalStateException if the method is not annotated, returns an asynchronous type, or
	 * has a malformed retention or lease
	 * @since 0.2.0
	 */
	public static IdempotentMethod of(Method method, Class<?> targetClass, MessageTransports transports,
			StringValueResolver placeholders) {
		return of(method, targetClass, transports, placeholders, null);
	}

	/**
	 * Reads the annotation of {@code method}, with a default fingerprint expression.
	 * @param method the method, possibly a bridge or an interface method
	 * @param targetClass the class the method is invoked on
	 * @param transports the registered transports, whose listener annotations name the method's
	 * listener
	 * @param placeholders resolves {@code ${...}} in the annotation's strings
	 * @param defaultFingerprint the fingerprint expression of methods whose annotation sets none
	 * ({@code idempotency.fingerprint}), or {@code null} for none
	 * @return the metadata
	 * @throws IllegalStateException if the method is not annotated, returns an asynchronous type, or
	 * has a malformed retention or lease
	 * @since 0.2.0
	 */
	public static IdempotentMethod of(Method method, Class<?> targetClass, MessageTransports transports,
			StringValueResolver placeholders, @Nullable String defaultFingerprint) {
		Idempotent annotation = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
		if (annotation == null) {
			throw new IllegalStateException(method + " is not annotated with @Idempotent");
		}
		Class<?> returnType = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(returnType) || Future.class.isAssignableFrom(returnType)
				|| ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType) != null) {
			throw new IllegalStateException("@Idempotent method " + method + " returns " + returnType.getSimpleName()
					+ "; the work must finish before the transaction commits, so return a plain value");
		}
		String namespace = resolve(annotation.namespace(), placeholders);
		// The listener's transport may give defaults of its own (HTTP: fingerprint the request, replay
		// the response), before the application's.
		String transportFingerprint = transports.defaultFingerprint(method, targetClass);
		OnDuplicate onDuplicate = (annotation.onDuplicate() == OnDuplicate.ACKNOWLEDGE
				&& transports.returnsPreviousResult(method, targetClass)) ? OnDuplicate.RETURN_PREVIOUS
						: annotation.onDuplicate();
		return new IdempotentMethod(annotation.key(), namespace.isEmpty() ? null : namespace,
				targetClass.getSimpleName() + "#" + method.getName(),
				listenerId(method, targetClass, transports, placeholders),
				parseDuration("retention", resolve(annotation.retention(), placeholders), "7d", method),
				parseDuration("lease", resolve(annotation.lease(), placeholders), "30s", method), onDuplicate,
				resolve(annotation.store(), placeholders), skippedValue(returnType), batchParameter(method),
				annotation.mode(), fingerprintExpression(annotation.fingerprint(),
						(transportFingerprint != null) ? transportFingerprint : defaultFingerprint));
	}

	/**
	 * Whether invocations record details with their keys (a fingerprint, a result), which only the
	 * store can answer: such a method is never answered by a duplicate filter alone.
	 * @return {@code true} if the method has a fingerprint expression or returns previous results
	 * @since 0.2.0
	 */
	public boolean recordsKeyDetails() {
		return this.fingerprintExpression != null || this.onDuplicate == OnDuplicate.RETURN_PREVIOUS;
	}

	private static @Nullable String fingerprintExpression(String declared, @Nullable String defaultFingerprint) {
		String expression = declared.isBlank() ? defaultFingerprint : declared.trim();
		return (expression != null && !expression.isBlank()) ? expression.trim() : null;
	}

	/**
	 * The namespace of this method's keys for one delivery: the annotation's, else one that
	 * identifies the listener method: the delivery's (its consumer group) followed by
	 * {@link #listener()} (the listener's id, else {@code SimpleClassName#method}), so that two methods never share keys because they share a
	 * group (a global {@code spring.kafka.consumer.group-id}).
	 * @param delivery the current delivery, or {@code null}
	 * @return the namespace
	 */
	public String namespaceFor(@Nullable DeliveryContext delivery) {
		if (this.namespace != null) {
			return this.namespace;
		}
		if (delivery != null && delivery.namespace() != null && !delivery.namespace().isBlank()) {
			return delivery.namespace() + ":" + listener();
		}
		return listener();
	}

	/**
	 * What identifies the method's listener in its default namespace: the listener's id when it names
	 * one (stable across class renames, and the same for every version of a listener that a rolling
	 * deployment runs side by side), else {@code SimpleClassName#method}.
	 * @return the listener's id, else {@code SimpleClassName#method}
	 */
	public String listener() {
		return (this.listenerId != null) ? this.listenerId : this.fallbackNamespace;
	}

	/**
	 * The {@code id} of the method's listener annotation, or of its class's for a class-level
	 * listener ({@code @KafkaHandler} methods), placeholders resolved; {@code null} when it names none.
	 */
	private static @Nullable String listenerId(Method method, Class<?> targetClass, MessageTransports transports,
			StringValueResolver placeholders) {
		String declared = transports.listenerId(method, targetClass);
		String id = (declared != null) ? resolve(declared, placeholders) : "";
		return id.isEmpty() ? null : id;
	}

	private static int batchParameter(Method method) {
		Class<?>[] types = method.getParameterTypes();
		for (int i = 0; i < types.length; i++) {
			if (List.class.isAssignableFrom(types[i])) {
				return i;
			}
		}
		return -1;
	}

	private static String resolve(String value, StringValueResolver placeholders) {
		if (value.isEmpty()) {
			return value;
		}
		String resolved = placeholders.resolveStringValue(value);
		return (resolved != null) ? resolved.trim() : "";
	}

	private static @Nullable Duration parseDuration(String attribute, String value, String example, Method method) {
		if (value.isEmpty()) {
			return null;
		}
		try {
			Duration duration = DurationFormatterUtils.detectAndParse(value);
			if (duration.isNegative() || duration.isZero()) {
				throw new IllegalArgumentException("must be positive");
			}
			return duration;
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("@Idempotent(" + attribute + " = \"" + value + "\") on " + method
					+ " is not a positive duration such as \"" + example + "\" or \"PT12H\"", ex);
		}
	}

	private static @Nullable Object skippedValue(Class<?> returnType) {
		if (returnType == Optional.class) {
			return Optional.empty();
		}
		if (returnType.isPrimitive() && returnType != void.class) {
			return Array.get(Array.newInstance(returnType, 1), 0);
		}
		return null;
	}

}

package dev.idempotency.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Processes each message at most once in effect: the method runs inside a transaction that also
 * records {@code (namespace, key)} in an idempotency store; a second delivery of the same key is
 * acknowledged and skipped, and the delivery is acknowledged only after the transaction commits.
 *
 * <pre class="code">
 * &#64;KafkaListener(topics = "orders", groupId = "points")
 * &#64;Idempotent(key = "#msg.orderId")
 * void onOrder(OrderPlaced msg) { points.credit(msg.userId(), msg.points()); }
 * </pre>
 *
 * @since 0.1.0
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface Idempotent {

	/**
	 * SpEL expression for the idempotency key, evaluated over the method parameters ({@code #msg},
	 * {@code #p0}, {@code #root.args}) and the current delivery ({@code #record}, {@code #headers}).
	 * Empty means the message id of the current delivery: header {@code message-id} (a leading
	 * {@code ~} doubled), else the transport's own id with a reserved prefix
	 * ({@code ~kafka:topic:partition:offset}, {@code ~redis-stream:<stream>:<record id>}), so a
	 * producer's id never equals another record's. A key that resolves to {@code null} or blank is
	 * rejected, never stored.
	 * @return the key expression
	 */
	String key() default "";

	/**
	 * Logical consumer the key belongs to. Empty means one that identifies this method: the
	 * listener's group id and the listener's {@code id} when it names one, else
	 * {@code SimpleClassName#method} ({@code points:PointsListener#onOrder}), or
	 * {@code SimpleClassName#method} alone outside a listener, so two methods never share keys by
	 * accident. Set it explicitly in production: renaming a class or method must not change which
	 * keys count as seen. Two methods share keys only when they name the same namespace.
	 * @return the namespace
	 */
	String namespace() default "";

	/**
	 * How long a processed key is remembered, e.g. {@code "7d"}; {@code ${...}} placeholders are
	 * resolved. Empty means {@code idempotency.retention}.
	 * @return the retention
	 */
	String retention() default "";

	/**
	 * How long an in-progress claim of leased mode (the Redis and Redisson stores, or
	 * {@link IdempotencyMode#LEASED}) holds the key before another delivery may take it over, e.g.
	 * {@code "30s"}; {@code ${...}} placeholders are resolved. While the method runs the lease is
	 * renewed (see {@code idempotency.lease-renewal}), so it bounds how long a crashed run blocks its
	 * key, not how long the method may take. Empty means {@code idempotency.lease}. Transactional
	 * mode has no lease: the row lock lasts as long as the transaction.
	 * @return the lease
	 * @since 0.2.0
	 */
	String lease() default "";

	/**
	 * How the key is recorded: in the business transaction, or under a lease for work that no local
	 * transaction covers.
	 * @return the mode
	 * @since 0.2.0
	 */
	IdempotencyMode mode() default IdempotencyMode.DEFAULT;

	/**
	 * SpEL expression for the payload whose fingerprint is recorded with the key, evaluated like
	 * {@link #key()} (e.g. {@code "#msg"}); the value is serialized canonically (JSON with sorted
	 * properties; a {@code String} or {@code byte[]} as is) and hashed with SHA-256. A later delivery
	 * of the same key with a different fingerprint fails with a non-retryable
	 * {@code IdempotencyKeyConflictException} (dead-lettered, counted as {@code conflict}) instead of
	 * being skipped. Empty means {@code idempotency.fingerprint}, and none when that is unset.
	 * @return the fingerprint expression
	 * @since 0.2.0
	 */
	String fingerprint() default "";

	/**
	 * What to do with a duplicate delivery.
	 * @return the duplicate policy
	 */
	OnDuplicate onDuplicate() default OnDuplicate.ACKNOWLEDGE;

	/**
	 * Name of the {@code IdempotencyStore} bean to use. Empty means the configured store.
	 * @return the store bean name
	 */
	String store() default "";

}

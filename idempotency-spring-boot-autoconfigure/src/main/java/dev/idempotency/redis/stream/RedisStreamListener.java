package dev.idempotency.redis.stream;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a bean method that receives the entries of a Redis Stream as a member of a consumer group.
 * The entry is acknowledged (XACK) only after the method returned; on an {@code @Idempotent} method,
 * after the transaction committed (or, with a Redis idempotency store, in the same script that
 * marks the key completed). A method that throws leaves the entry pending; it is claimed again after
 * {@code idempotency.redis.stream.min-idle} and dead-lettered after
 * {@code idempotency.redis.stream.max-deliveries}.
 * <p>
 * The method takes exactly one parameter, chosen by its type:
 * <ul>
 * <li>{@code MapRecord<String, String, String>} (or {@code Record}): the entry as read;</li>
 * <li>{@code ObjectRecord<String, T>}: the entry with its payload field converted to {@code T};</li>
 * <li>{@code String}: the payload field as it is;</li>
 * <li>any other type: the payload field read as JSON into that type.</li>
 * </ul>
 * The payload field is {@code payload} unless {@code idempotency.redis.stream.payload-field} says
 * otherwise. A payload that cannot be converted is dead-lettered at once. Every attribute accepts
 * {@code ${...}} placeholders.
 * <p>
 * The container calls the method reflectively; {@link Reflective @Reflective} has Spring AOT
 * register that call for a native image, as for {@code @EventListener} methods.
 *
 * @since 0.1.0
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface RedisStreamListener {

	/**
	 * The stream key.
	 * @return the stream
	 */
	String stream();

	/**
	 * The consumer group; created (with MKSTREAM, from the start of the stream) if missing, and the
	 * default namespace of {@code @Idempotent}.
	 * @return the group
	 */
	String group();

	/**
	 * The consumer name. Empty means unique per application instance (host, process id and a random
	 * suffix). Set a stable name to have a restarted instance read its own pending entries first.
	 * With a concurrency above 1, {@code -0}, {@code -1}, ... are appended.
	 * @return the consumer name
	 */
	String consumer() default "";

	/**
	 * How many consumers of the group this method runs in this instance, each with its own thread.
	 * Empty means {@code idempotency.redis.stream.concurrency}.
	 * @return the concurrency
	 */
	String concurrency() default "";

	/**
	 * The listener's id, to find its container in the {@link RedisStreamListenerRegistry}. Empty
	 * means {@code <bean name>#<method name>}.
	 * @return the id
	 */
	String id() default "";

}

package dev.idempotency.redis.stream;

import java.lang.reflect.Type;

/**
 * Converts an entry's payload field into a listener's parameter type.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface RedisStreamPayloadConverter {

	/**
	 * Converts a payload.
	 * @param payload the payload field's value
	 * @param targetType the parameter's (generic) type
	 * @return the converted value
	 * @throws RuntimeException if the payload cannot be converted; the entry is then dead-lettered
	 * at once, since redelivering it cannot help
	 */
	Object convert(String payload, Type targetType);

}

package dev.idempotency.redis.stream;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.core.ResolvableType;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.ObjectRecord;
import org.springframework.data.redis.connection.stream.StreamRecords;

/**
 * Turns a stream entry into the argument of a {@link RedisStreamListener} method: the record itself
 * for a {@code MapRecord} (or supertype) parameter, an {@code ObjectRecord} of the converted payload,
 * or the payload field as a string or converted to the parameter's type. The choice is made once,
 * from the method's signature, so that a delivery pays only for its own conversion.
 */
final class StreamArgumentResolver {

	private final Function<MapRecord<String, String, String>, @Nullable Object> resolver;

	/**
	 * Creates a resolver for the method's only parameter.
	 * @param method the listener method
	 * @param payloadField the field holding the payload
	 * @param converter converts payloads to types other than records and strings, or {@code null}
	 */
	StreamArgumentResolver(Method method, String payloadField, @Nullable RedisStreamPayloadConverter converter) {
		this.resolver = resolver(method, payloadField, converter);
	}

	/**
	 * Resolves the argument for one entry.
	 * @param record the entry
	 * @return the argument
	 * @throws RedisStreamPayloadException if the payload is missing or cannot be converted; the entry
	 * is not retryable
	 */
	@Nullable Object resolve(MapRecord<String, String, String> record) {
		return this.resolver.apply(record);
	}

	private static Function<MapRecord<String, String, String>, @Nullable Object> resolver(Method method,
			String payloadField, @Nullable RedisStreamPayloadConverter converter) {
		Class<?> raw = method.getParameterTypes()[0];
		Type generic = method.getGenericParameterTypes()[0];
		if (raw.isAssignableFrom(MapRecord.class)) {
			return (record) -> record;
		}
		if (ObjectRecord.class.equals(raw)) {
			ResolvableType valueType = ResolvableType.forMethodParameter(method, 0).getGeneric(1);
			Type target = (valueType.resolve() != null) ? valueType.getType() : String.class;
			return (record) -> StreamRecords.newRecord()
				.in(record.getStream())
				.withId(record.getId())
				.ofObject(payload(record, payloadField, target, converter));
		}
		return (record) -> payload(record, payloadField, generic, converter);
	}

	private static Object payload(MapRecord<String, String, String> record, String payloadField, Type target,
			@Nullable RedisStreamPayloadConverter converter) {
		String payload = record.getValue().get(payloadField);
		if (payload == null) {
			throw new RedisStreamPayloadException(
					"Entry " + record.getId() + " of stream '" + record.getStream() + "' has no field '" + payloadField + "'");
		}
		if (String.class.equals(target)) {
			return payload;
		}
		if (converter == null) {
			throw new RedisStreamPayloadException("No RedisStreamPayloadConverter to convert the payload of entry "
					+ record.getId() + " to " + target.getTypeName() + "; add Jackson or define one");
		}
		try {
			return converter.convert(payload, target);
		}
		catch (RuntimeException ex) {
			throw new RedisStreamPayloadException("Payload of entry " + record.getId() + " of stream '"
					+ record.getStream() + "' cannot be converted to " + target.getTypeName(), ex);
		}
	}

}

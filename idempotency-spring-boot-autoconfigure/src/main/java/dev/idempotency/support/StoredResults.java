package dev.idempotency.support;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.core.NonRetryableIdempotencyException;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.MethodClassKey;
import org.springframework.core.ResolvableType;
import org.springframework.util.Assert;
import org.springframework.util.unit.DataSize;

/**
 * Serializes the results of {@code @Idempotent(onDuplicate = RETURN_PREVIOUS)} methods for the
 * store, and reads them back as the method's generic return type, with the application's
 * {@link JsonMapper} (so its modules and settings apply both ways). A serialized result larger than
 * the maximum size is refused before it is stored. Thread-safe.
 *
 * @since 0.2.0
 */
public final class StoredResults {

	private final JsonMapper mapper;

	private final long maxSize;

	private final Map<MethodClassKey, JavaType> returnTypes = new ConcurrentHashMap<>();

	/**
	 * Creates the serializer.
	 * @param mapper the application's mapper, or a default one
	 * @param maxSize the largest serialized result stored, in UTF-8 bytes
	 */
	public StoredResults(JsonMapper mapper, DataSize maxSize) {
		Assert.notNull(mapper, "mapper must not be null");
		Assert.isTrue(!maxSize.isNegative(), "maxSize must not be negative");
		this.mapper = mapper;
		this.maxSize = maxSize.toBytes();
	}

	/**
	 * Serializes a result.
	 * @param result the method's result, not {@code null}
	 * @param method the method, for messages
	 * @return the JSON
	 * @throws StoredResultTooLargeException if the JSON is larger than the maximum size
	 * @throws NonRetryableIdempotencyException if the result cannot be serialized
	 */
	public String serialize(Object result, Method method) {
		String json;
		try {
			json = this.mapper.writeValueAsString(result);
		}
		catch (JacksonException ex) {
			throw new NonRetryableIdempotencyException("The result of " + PayloadFingerprints.describe(method)
					+ " (a " + result.getClass().getName() + ") cannot be serialized as JSON to be stored for "
					+ "onDuplicate = RETURN_PREVIOUS: " + ex.getOriginalMessage(), ex);
		}
		// Bytes are counted only when the characters alone cannot tell.
		long size = (json.length() * 3L <= this.maxSize) ? json.length()
				: json.getBytes(StandardCharsets.UTF_8).length;
		if (size > this.maxSize) {
			throw new StoredResultTooLargeException("The result of " + PayloadFingerprints.describe(method) + " is "
					+ size + " bytes as JSON, more than idempotency.stored-result.max-size (" + this.maxSize
					+ " bytes); it is not stored and the invocation is rolled back. Return a smaller result (an id "
					+ "to look the rest up by) or raise the limit");
		}
		return json;
	}

	/**
	 * Reads a stored result back.
	 * @param json the stored JSON
	 * @param method the method whose return type it is read as
	 * @param targetClass the class the method is invoked on, which resolves type variables
	 * @return the result
	 * @throws NonRetryableIdempotencyException if the JSON cannot be read as the return type (it was
	 * stored by a version of the method that returned something else)
	 */
	public @Nullable Object deserialize(String json, Method method, Class<?> targetClass) {
		JavaType type = this.returnTypes.computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> this.mapper.constructType(returnType(method, targetClass)));
		try {
			return this.mapper.readValue(json, type);
		}
		catch (JacksonException ex) {
			throw new NonRetryableIdempotencyException("The result stored for " + PayloadFingerprints.describe(method)
					+ " cannot be read as its return type " + type + " (was it stored by a version that returned "
					+ "something else?): " + ex.getOriginalMessage(), ex);
		}
	}

	private static Type returnType(Method method, Class<?> targetClass) {
		return ResolvableType.forMethodReturnType(method, targetClass).getType();
	}

}

package dev.idempotency.support;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Computes the fingerprint of a payload: the lower-case hex SHA-256 of a canonical serialization.
 * <ul>
 * <li>A {@code String} is hashed as its UTF-8 bytes, a {@code byte[]} as it is: a raw message body
 * is fingerprinted exactly as it arrived.</li>
 * <li>Anything else is written as JSON by a mapper of its own, not the application's: properties
 * sorted by name (record components too), map entries ordered by key, so that two equal payloads
 * give one fingerprint whatever the order their fields were declared or their maps filled in, and
 * a change to the application's JSON settings does not turn every redelivery into a conflict.</li>
 * <li>{@code null} is refused: a payload that is not there cannot be compared.</li>
 * </ul>
 * Thread-safe.
 *
 * @since 0.2.0
 */
public final class PayloadFingerprints {

	private static final HexFormat HEX = HexFormat.of();

	private final JsonMapper canonical;

	/**
	 * Creates fingerprints with the canonical mapper.
	 */
	public PayloadFingerprints() {
		this.canonical = JsonMapper.builder()
			.enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
			// Records and creator properties otherwise come first, in declaration order.
			.disable(MapperFeature.SORT_CREATOR_PROPERTIES_FIRST)
			.enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
			.build();
	}

	/**
	 * Returns the fingerprint of a payload.
	 * @param payload the value of the method's fingerprint expression
	 * @param expression the expression, for messages
	 * @param method the {@code @Idempotent} method, for messages
	 * @return lower-case hex SHA-256, 64 characters
	 * @throws InvalidFingerprintException if the payload is {@code null} or cannot be serialized;
	 * retrying cannot fix either
	 */
	public String fingerprint(@Nullable Object payload, String expression, Method method) {
		if (payload == null) {
			throw new InvalidFingerprintException("Fingerprint expression '" + expression + "' of "
					+ describe(method) + " resolved to null; a payload that is not there cannot be fingerprinted");
		}
		return sha256(canonicalBytes(payload, expression, method));
	}

	private byte[] canonicalBytes(Object payload, String expression, Method method) {
		if (payload instanceof byte[] bytes) {
			return bytes;
		}
		if (payload instanceof String text) {
			return text.getBytes(StandardCharsets.UTF_8);
		}
		try {
			return this.canonical.writeValueAsBytes(payload);
		}
		catch (JacksonException ex) {
			throw new InvalidFingerprintException("Fingerprint expression '" + expression + "' of "
					+ describe(method) + " resolved to a " + payload.getClass().getName()
					+ " that cannot be serialized as JSON: " + ex.getOriginalMessage(), ex);
		}
	}

	static String sha256(byte[] bytes) {
		try {
			return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

	static String describe(Method method) {
		return "@Idempotent method " + method.getDeclaringClass().getSimpleName() + "#" + method.getName();
	}

}

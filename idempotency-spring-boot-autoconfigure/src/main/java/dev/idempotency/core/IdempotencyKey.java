package dev.idempotency.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A key in its namespace: the pair a store remembers. Both parts are non-blank.
 *
 * @param namespace the logical consumer (listener group, or {@code Class#method})
 * @param value the key within the namespace
 * @since 0.1.0
 */
public record IdempotencyKey(String namespace, String value) {

	/** Prefix of a digested part, so a digest can never equal a short key verbatim. */
	public static final String DIGEST_PREFIX = "sha256:";

	public IdempotencyKey {
		if (namespace == null || namespace.isBlank()) {
			throw new InvalidIdempotencyKeyException("Idempotency namespace must not be blank");
		}
		if (value == null || value.isBlank()) {
			throw new InvalidIdempotencyKeyException(
					"Idempotency key must not be null or blank (namespace '" + namespace + "')");
		}
	}

	/**
	 * Returns this key with each part longer than {@code maxLength} characters replaced by
	 * {@code sha256:<hex>} (71 characters), so that it fits a store's column or key size.
	 * @param maxLength the longest part the store keeps verbatim, at least 71
	 * @return this key, or a digested copy
	 */
	public IdempotencyKey digestedBeyond(int maxLength) {
		if (maxLength < DIGEST_PREFIX.length() + 64) {
			throw new IllegalArgumentException("maxLength must be at least 71 to hold a digest");
		}
		if (this.namespace.length() <= maxLength && this.value.length() <= maxLength) {
			return this;
		}
		return new IdempotencyKey(digestBeyond(this.namespace, maxLength), digestBeyond(this.value, maxLength));
	}

	private static String digestBeyond(String part, int maxLength) {
		if (part.length() <= maxLength) {
			return part;
		}
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(part.getBytes(StandardCharsets.UTF_8));
			return DIGEST_PREFIX + HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

	@Override
	public String toString() {
		return this.namespace + ":" + this.value;
	}

}

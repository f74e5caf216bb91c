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

	/**
	 * Prefix of a digested part. A part that starts with it is always digested, however short, so a
	 * digest can never equal a part kept verbatim.
	 */
	public static final String DIGEST_PREFIX = "sha256:";

	private static final int DIGEST_LENGTH = DIGEST_PREFIX.length() + 64;

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
	 * Returns this key as a store keeps it: each part longer than {@code maxLength} characters, or
	 * starting with {@value #DIGEST_PREFIX}, replaced by {@code sha256:<hex>} (71 characters), so that
	 * it fits a store's column or key size and a part kept verbatim never looks like a digest (a
	 * literal {@code sha256:<hex of L>} is not taken for the long part {@code L}).
	 * @param maxLength the longest part the store keeps verbatim, at least 71
	 * @return this key, or a digested copy
	 */
	public IdempotencyKey digestedBeyond(int maxLength) {
		if (maxLength < DIGEST_LENGTH) {
			throw new IllegalArgumentException("maxLength must be at least 71 to hold a digest");
		}
		if (keptVerbatim(this.namespace, maxLength) && keptVerbatim(this.value, maxLength)) {
			return this;
		}
		return new IdempotencyKey(digestBeyond(this.namespace, maxLength), digestBeyond(this.value, maxLength));
	}

	/**
	 * Whether {@code part} is a digest as {@link #digestedBeyond} writes it: {@value #DIGEST_PREFIX}
	 * and 64 lower-case hexadecimal digits.
	 * @param part a namespace or key as a store keeps it
	 * @return {@code true} for a digest
	 * @since 0.2.0
	 */
	public static boolean isDigest(String part) {
		if (part.length() != DIGEST_LENGTH || !part.startsWith(DIGEST_PREFIX)) {
			return false;
		}
		for (int i = DIGEST_PREFIX.length(); i < DIGEST_LENGTH; i++) {
			char c = part.charAt(i);
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
				return false;
			}
		}
		return true;
	}

	/**
	 * This key as one string that names it unambiguously, for stores and caches that keep keys
	 * under one name (Redis): the namespace with {@code %} and {@code :} percent-encoded, a
	 * {@code :}, then the key as it is. The first {@code :} always ends the namespace, so two
	 * different keys never share a name, as {@code a:b}/{@code c} and {@code a}/{@code b:c} would
	 * joined plainly.
	 * @return {@code <encoded namespace>:<key>}
	 * @since 0.2.0
	 */
	public String qualifiedName() {
		String encoded = (this.namespace.indexOf(':') < 0 && this.namespace.indexOf('%') < 0) ? this.namespace
				: this.namespace.replace("%", "%25").replace(":", "%3A");
		return encoded + ":" + this.value;
	}

	private static boolean keptVerbatim(String part, int maxLength) {
		return part.length() <= maxLength && !part.startsWith(DIGEST_PREFIX);
	}

	private static String digestBeyond(String part, int maxLength) {
		if (keptVerbatim(part, maxLength)) {
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

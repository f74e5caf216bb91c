package dev.idempotency.store.redisson;

import dev.idempotency.core.IdempotencyKey;

/**
 * The Redis names of keys in this package: {@code <prefix><namespace>:<key>}, with key parts longer
 * than {@value #MAX_KEY_LENGTH} characters or starting with {@code sha256:} stored as SHA-256
 * digests ({@link IdempotencyKey#digestedBeyond}) and a {@code :} or {@code %}
 * in the namespace percent-encoded, so that the first {@code :} after the prefix always ends the
 * namespace and two keys never share a name.
 */
final class RedissonNames {

	/** Longest namespace or key kept verbatim, as in the JDBC and Redis stores. */
	static final int MAX_KEY_LENGTH = 200;

	private RedissonNames() {
	}

	static String of(String prefix, IdempotencyKey key) {
		IdempotencyKey stored = key.digestedBeyond(MAX_KEY_LENGTH);
		return prefix + stored.qualifiedName();
	}

}

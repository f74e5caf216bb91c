package dev.idempotency.store.redis.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the Redis store.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotency.redis")
public class IdempotencyRedisProperties {

	/**
	 * Prefix of the Redis store's keys; a key is the prefix, the namespace, a colon and the
	 * idempotency key. Applications that share a Redis database and could use the same namespace
	 * need different prefixes.
	 */
	private String keyPrefix = "idempotency:";

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

}

package dev.idempotency.redis.stream;

import java.util.List;
import java.util.Set;

import dev.idempotency.testsupport.TestRedisConnections;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The conflict of a Redis Stream entry with the Redis store on the same Redis (its details hash
 * beside the entry), no database.
 */
class RedisStreamConflictRedisStoreIntegrationTests extends AbstractRedisStreamConflictIntegrationTests {

	private static final String PREFIX = TestRedisConnections
		.uniqueKeyPrefix(RedisStreamConflictRedisStoreIntegrationTests.class);

	@Override
	protected String storeName() {
		return "redis";
	}

	@Override
	protected List<String> storeProperties() {
		return List.of("idempotency.store.type=redis", "idempotency.redis.key-prefix=" + PREFIX,
				"spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration");
	}

	@Override
	protected void deleteStoreKeys(StringRedisTemplate redis) {
		for (String pattern : List.of(PREFIX + "*", "{" + PREFIX + "*")) {
			Set<String> keys = redis.keys(pattern);
			if (keys != null && !keys.isEmpty()) {
				redis.delete(keys);
			}
		}
	}

}

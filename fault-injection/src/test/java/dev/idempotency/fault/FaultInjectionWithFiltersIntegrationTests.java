package dev.idempotency.fault;

import java.util.Map;
import java.util.UUID;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kafka kill suite with the duplicate filter chain on (a local Bloom filter, rebuilt from the
 * table at each restart, then the keys completed recently in Redis). The after-commit kill point
 * runs before the interceptor's {@code afterCommit}, so each such kill lands between the database
 * commit and the filters' write: the redelivery must be answered by the store, and every order is
 * still credited exactly once (the suite's ledger check).
 */
class FaultInjectionWithFiltersIntegrationTests extends FaultInjectionIntegrationTests {

	private final String prefix = "fault-filters-" + UUID.randomUUID().toString().substring(0, 8) + ":";

	@Override
	protected Map<String, String> extraConsumerProperties() {
		return Map.of("idempotency.filter.enabled", "true", "idempotency.filter.layers", "bloom,redis-recent",
				"idempotency.filter.recent.key-prefix", this.prefix, "idempotency.filter.recent.ttl", "1h",
				// The Kafka consumer leaves Redis out (fault-consumer.properties); the recent keys need it.
				"spring.autoconfigure.exclude", "", "spring.data.redis.host", FaultStreams.HOST,
				"spring.data.redis.port", Integer.toString(FaultStreams.PORT));
	}

	/** The filters took part: Redis learned nearly every order (a kill between the acknowledgement and the write may lose a few), and the keys are removed. */
	@Override
	protected void verifyMore(int uniqueOrders) {
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(FaultStreams.HOST, FaultStreams.PORT));
		connectionFactory.afterPropertiesSet();
		try {
			StringRedisTemplate redis = new StringRedisTemplate(connectionFactory);
			long learned = 0;
			try (Cursor<String> keys = redis.scan(ScanOptions.scanOptions().match(this.prefix + "*").count(1000).build())) {
				while (keys.hasNext()) {
					redis.delete(keys.next());
					learned++;
				}
			}
			System.out.printf("[filters] Redis learned %d of %d orders%n", learned, uniqueOrders);
			assertThat(learned).as("orders the recent-keys layer learned").isGreaterThan(uniqueOrders * 9L / 10);
		}
		finally {
			connectionFactory.destroy();
		}
	}

}

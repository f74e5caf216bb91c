package dev.idempotency.redis.filter;

import java.time.Duration;

import dev.idempotency.core.DuplicateFilter.Answer;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.testsupport.TestRedisConnections;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recent-keys filter against the real Redis: a learned key is answered completed, and only that
 * key. A key whose namespace holds a {@code :} must not be mistaken for another key that joins to
 * the same text, or the filter would skip a message that was never processed.
 */
class RedisRecentKeysFilterIntegrationTests {

	private static final String PREFIX = TestRedisConnections
		.uniqueKeyPrefix(RedisRecentKeysFilterIntegrationTests.class);

	private static LettuceConnectionFactory redis;

	private static StringRedisTemplate template;

	@BeforeAll
	static void connect() {
		redis = TestRedisConnections.connectionFactory();
		template = new StringRedisTemplate(redis);
	}

	@AfterAll
	static void disconnect() {
		TestRedisConnections.deleteKeys(redis, PREFIX);
		redis.destroy();
	}

	@Test
	void aKeyIsNotMistakenForAnotherThatJoinsToTheSameText() {
		try (RedisRecentKeysFilter filter = new RedisRecentKeysFilter(template, PREFIX, Duration.ofMinutes(5))) {
			IdempotencyKey learned = new IdempotencyKey("points:orders", "o-1");
			filter.learn(learned);
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> filter.pendingWrites() == 0 && filter.check(learned) == Answer.COMPLETED);

			assertThat(filter.check(new IdempotencyKey("points", "orders:o-1"))).isEqualTo(Answer.UNKNOWN);
			assertThat(filter.check(new IdempotencyKey("points:orders", "o-2"))).isEqualTo(Answer.UNKNOWN);
			assertThat(filter.check(new IdempotencyKey("points%3Aorders", "o-1"))).isEqualTo(Answer.UNKNOWN);
			assertThat(filter.dropped()).isZero();
		}
	}

}

package dev.idempotency.store.redisson;

import dev.idempotency.core.DuplicateFilter.Answer;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.testsupport.TestRedisConnections;
import dev.idempotency.testsupport.TestRedissonClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedissonBloomFilter} on a real Redis: answers, sharing between instances, the
 * false-positive rate, and generations.
 */
class RedissonBloomFilterIntegrationTests {

	private static final String PREFIX = TestRedisConnections.uniqueKeyPrefix(RedissonBloomFilterIntegrationTests.class);

	private static RedissonClient redisson;

	@BeforeAll
	static void connect() {
		redisson = TestRedissonClients.client();
	}

	@AfterAll
	static void deleteKeysAndDisconnect() {
		if (redisson != null) {
			TestRedissonClients.deleteKeys(redisson, PREFIX);
			redisson.shutdown();
		}
	}

	@Test
	void keyNeverLearnedIsAbsentEvenBeforeAnythingWasLearned() {
		RedissonBloomFilter filter = filter("empty", 1_000);
		assertThat(filter.check(key("n", "never"))).isEqualTo(Answer.ABSENT);
		assertThat(filter.generation()).isZero();
	}

	@Test
	void learnedKeyIsMaybeForEveryInstanceAndOnlyInItsNamespace() {
		RedissonBloomFilter one = filter("shared", 1_000);
		RedissonBloomFilter other = filter("shared", 1_000);
		one.learn(key("points", "order-1"));
		assertThat(one.check(key("points", "order-1"))).isEqualTo(Answer.MAYBE);
		assertThat(other.check(key("points", "order-1"))).isEqualTo(Answer.MAYBE);
		assertThat(other.check(key("shipping", "order-1"))).isEqualTo(Answer.ABSENT);
		assertThat(other.check(key("points:order", "1"))).isEqualTo(Answer.ABSENT);
	}

	@Test
	void falsePositiveRateStaysNearTheConfiguredRate() {
		RedissonBloomFilter filter = filter("rate", 1_000);
		for (int i = 0; i < 1_000; i++) {
			filter.learn(key("n", "learned-" + i));
		}
		int falsePositives = 0;
		for (int i = 0; i < 3_000; i++) {
			falsePositives += (filter.check(key("n", "new-" + i)) == Answer.MAYBE) ? 1 : 0;
		}
		for (int i = 0; i < 1_000; i++) {
			assertThat(filter.check(key("n", "learned-" + i))).isEqualTo(Answer.MAYBE);
		}
		System.out.printf("RedissonBloomFilter: %d false positives in 3000 checks at 1%%%n", falsePositives);
		assertThat(falsePositives).isLessThan(3_000 * 3 / 100);
	}

	@Test
	void fullGenerationRotatesKeepsThePreviousOneAndDropsTheOneBefore() {
		RedissonBloomFilter filter = filter("rotating", 100);
		RedissonBloomFilter otherInstance = filter("rotating", 100);
		learn(filter, "first", 100);
		assertThat(filter.generation()).isZero();
		learn(filter, "second", 100);
		assertThat(filter.generation()).as("rotated once the first generation passed 100 keys").isEqualTo(1);
		assertThat(otherInstance.generation()).isEqualTo(1);
		assertThat(maybeCount(otherInstance, "first", 100)).as("previous generation still answers").isEqualTo(100);
		// The second generation is full after a few of these: the third takes the rest.
		learn(otherInstance, "third", 60);
		assertThat(filter.generation()).isEqualTo(2);
		assertThat(maybeCount(filter, "third", 60)).isEqualTo(60);
		assertThat(maybeCount(filter, "first", 100)).as("dropped generation's keys (a few false positives)")
			.isLessThan(10);
		long ttl = redisson.getBloomFilter(PREFIX + "rotating:0").remainTimeToLive();
		assertThat(ttl).isPositive().isLessThanOrEqualTo(RedissonBloomFilter.DROPPED_GENERATION_GRACE.toMillis());
	}

	private static void learn(RedissonBloomFilter filter, String prefix, int count) {
		for (int i = 0; i < count; i++) {
			filter.learn(key("n", prefix + "-" + i));
		}
	}

	private static int maybeCount(RedissonBloomFilter filter, String prefix, int count) {
		int maybe = 0;
		for (int i = 0; i < count; i++) {
			maybe += (filter.check(key("n", prefix + "-" + i)) == Answer.MAYBE) ? 1 : 0;
		}
		return maybe;
	}

	private static RedissonBloomFilter filter(String name, long expectedInsertions) {
		return new RedissonBloomFilter(redisson, PREFIX + name, expectedInsertions, 0.01);
	}

	private static IdempotencyKey key(String namespace, String value) {
		return new IdempotencyKey(namespace, value);
	}

}

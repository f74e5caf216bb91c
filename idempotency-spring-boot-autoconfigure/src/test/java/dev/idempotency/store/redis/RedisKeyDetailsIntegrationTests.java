package dev.idempotency.store.redis;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.store.AbstractKeyDetailsContractTests;
import dev.idempotency.support.KeyDetailsScripts;
import dev.idempotency.testsupport.TestRedisConnections;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key details contract for {@link RedisIdempotencyStore} on a real Redis, and how long the
 * details hash lives: with the entry, through lease, renewal and retention.
 */
class RedisKeyDetailsIntegrationTests extends AbstractKeyDetailsContractTests {

	private static final String PREFIX = TestRedisConnections.uniqueKeyPrefix(RedisKeyDetailsIntegrationTests.class);

	private static LettuceConnectionFactory connectionFactory;

	private static StringRedisTemplate redis;

	private static RedisIdempotencyStore store;

	@BeforeAll
	static void connect() {
		connectionFactory = TestRedisConnections.connectionFactory();
		redis = new StringRedisTemplate(connectionFactory);
		store = new RedisIdempotencyStore(redis, PREFIX);
	}

	@AfterAll
	static void deleteKeysAndDisconnect() {
		if (connectionFactory != null) {
			TestRedisConnections.deleteKeys(connectionFactory, PREFIX);
			// The details hashes are named {<entry>}:details, for the entry's cluster slot.
			TestRedisConnections.deleteKeys(connectionFactory, "{" + PREFIX);
			connectionFactory.destroy();
		}
	}

	@Override
	protected IdempotencyStore store() {
		return store;
	}

	@Test
	void detailsLiveInAHashBesideTheEntryThatExpiresWithIt() {
		IdempotencyKey key = key("ttl");
		String entry = store.storageKey(key);
		String details = KeyDetailsScripts.detailsKey(entry);
		assertThat(details).isEqualTo("{" + entry + "}:details");
		ClaimResult claim = store.claim(key, LEASE, RETENTION);
		store.recordFingerprint(key, claim, FINGERPRINT_A);
		assertThat(redis.opsForHash().get(details, KeyDetailsScripts.FINGERPRINT)).isEqualTo(FINGERPRINT_A);
		assertThat(redis.getExpire(details)).as("seconds to live, while claimed")
			.isPositive()
			.isLessThanOrEqualTo(LEASE.toSeconds());
		assertThat(store.renew(key, claim, LEASE.multipliedBy(2))).isTrue();
		assertThat(redis.getExpire(details)).as("seconds to live, renewed").isGreaterThan(LEASE.toSeconds());
		store.complete(key, claim, RETENTION);
		assertThat(redis.getExpire(details)).as("seconds to live, completed")
			.isGreaterThan(RETENTION.minusMinutes(1).toSeconds());
		assertThat(redis.opsForValue().get(entry)).isEqualTo("COMPLETED");
	}

	@Test
	void aClaimTakenOverCannotRecordAnyMore() {
		IdempotencyKey key = key("lost-lease");
		ClaimResult first = store.claim(key, LEASE, RETENTION);
		store.release(key, first);
		ClaimResult second = store.claim(key, LEASE, RETENTION);
		store.recordFingerprint(key, second, FINGERPRINT_B);
		store.recordFingerprint(key, first, FINGERPRINT_A);
		store.recordResult(key, first, "\"late\"");
		store.complete(key, second, RETENTION);
		assertThat(store.recorded(key)).isEqualTo(new RecordedKey(FINGERPRINT_B, null));
	}

	@Test
	void detailsKeyKeepsAnEntrysOwnHashTag() {
		assertThat(KeyDetailsScripts.detailsKey("p:{orders}:1")).isEqualTo("p:{orders}:1:details");
		assertThat(KeyDetailsScripts.detailsKey("p:orders:1")).isEqualTo("{p:orders:1}:details");
	}

}

package dev.idempotency.store.redisson;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.store.AbstractKeyDetailsContractTests;
import dev.idempotency.support.redis.KeyDetailsScripts;
import dev.idempotency.testsupport.TestRedisConnections;
import dev.idempotency.testsupport.TestRedissonClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key details contract for {@link RedissonIdempotencyStore} on a real Redis, and how long the
 * details hash lives: with the entry, through lease, renewal and retention.
 */
class RedissonKeyDetailsIntegrationTests extends AbstractKeyDetailsContractTests {

	private static final String PREFIX = TestRedisConnections
		.uniqueKeyPrefix(RedissonKeyDetailsIntegrationTests.class);

	private static RedissonClient redisson;

	private static RedissonIdempotencyStore store;

	@BeforeAll
	static void connect() {
		redisson = TestRedissonClients.client();
		store = new RedissonIdempotencyStore(redisson, PREFIX);
	}

	@AfterAll
	static void deleteKeysAndDisconnect() {
		if (redisson != null) {
			TestRedissonClients.deleteKeys(redisson, PREFIX);
			// The details hashes are named {<entry>}:details, for the entry's cluster slot.
			TestRedissonClients.deleteKeys(redisson, "{" + PREFIX);
			redisson.shutdown();
		}
	}

	@Override
	protected IdempotencyStore store() {
		return store;
	}

	@Test
	void detailsLiveInAHashBesideTheEntryThatExpiresWithIt() {
		IdempotencyKey key = key("ttl");
		String details = KeyDetailsScripts.detailsKey(store.storageKey(key));
		ClaimResult claim = store.claim(key, LEASE, RETENTION);
		store.recordFingerprint(key, claim, FINGERPRINT_A);
		assertThat(redisson.<String, String>getMap(details, StringCodec.INSTANCE).get(KeyDetailsScripts.FINGERPRINT))
			.isEqualTo(FINGERPRINT_A);
		assertThat(redisson.getKeys().remainTimeToLive(details)).as("milliseconds to live, while claimed")
			.isPositive()
			.isLessThanOrEqualTo(LEASE.toMillis());
		assertThat(store.renew(key, claim, LEASE.multipliedBy(2))).isTrue();
		assertThat(redisson.getKeys().remainTimeToLive(details)).as("milliseconds to live, renewed")
			.isGreaterThan(LEASE.toMillis());
		store.complete(key, claim, RETENTION);
		assertThat(redisson.getKeys().remainTimeToLive(details)).as("milliseconds to live, completed")
			.isGreaterThan(RETENTION.minusMinutes(1).toMillis());
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

}

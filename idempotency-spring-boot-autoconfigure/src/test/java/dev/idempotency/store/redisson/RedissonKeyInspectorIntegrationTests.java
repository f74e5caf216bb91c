package dev.idempotency.store.redisson;

import java.time.Duration;
import java.time.Instant;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.support.redis.KeyDetailsScripts;
import dev.idempotency.testsupport.TestRedisConnections;
import dev.idempotency.testsupport.TestRedissonClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * {@link RedissonIdempotencyStore} as an {@code IdempotencyKeyInspector} on a real Redis, as
 * {@code RedisKeyInspectorIntegrationTests} checks the Redis store: an entry's status, remaining
 * time and details' presence; a release that refuses a claim in progress unless forced and deletes
 * the entry's details with it.
 */
class RedissonKeyInspectorIntegrationTests {

	private static final String PREFIX = TestRedisConnections
		.uniqueKeyPrefix(RedissonKeyInspectorIntegrationTests.class);

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final Duration RETENTION = Duration.ofHours(1);

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
			TestRedissonClients.deleteKeys(redisson, "{" + PREFIX);
			redisson.shutdown();
		}
	}

	@Test
	void aKeyNeverClaimedIsNotFound() {
		IdempotencyKey key = key("absent");
		assertThat(store.inspect(key)).isNull();
		assertThat(store.release(key, true)).isEqualTo(KeyRelease.NOT_FOUND);
	}

	@Test
	void aCompletedKeyShowsItsExpiryAndDetailsAndIsReleasedWithThem() {
		IdempotencyKey key = key("order-4711");
		ClaimResult claim = store.claim(key, LEASE, RETENTION);
		store.recordFingerprint(key, claim, "f".repeat(64));
		store.complete(key, claim, RETENTION);
		KeyRecord record = store.inspect(key);
		assertThat(record).isNotNull();
		assertThat(record.status()).isEqualTo(KeyRecord.Status.COMPLETED);
		assertThat(record.expiresAt()).isCloseTo(Instant.now().plus(RETENTION), within(Duration.ofSeconds(5)));
		assertThat(record.ownerTokenPresent()).isFalse();
		assertThat(record.leaseUntil()).isNull();
		assertThat(record.createdAt()).isNull();
		assertThat(record.attempts()).isNull();
		assertThat(record.fingerprintPresent()).isTrue();
		assertThat(record.resultPresent()).isFalse();
		assertThat(store.release(key, false)).isEqualTo(KeyRelease.RELEASED);
		String entry = store.storageKey(key);
		assertThat(redisson.getKeys().countExists(entry, KeyDetailsScripts.detailsKey(entry))).isZero();
		assertThat(store.claim(key, LEASE, RETENTION).isClaimed()).isTrue();
	}

	@Test
	void aClaimInProgressIsRefusedUnlessForced() {
		IdempotencyKey key = key("payment-1");
		ClaimResult claim = store.claim(key, LEASE, RETENTION);
		KeyRecord record = store.inspect(key);
		assertThat(record).isNotNull();
		assertThat(record.status()).isEqualTo(KeyRecord.Status.PROCESSING);
		assertThat(record.ownerTokenPresent()).isTrue();
		assertThat(record.leaseUntil()).isCloseTo(Instant.now().plus(LEASE), within(Duration.ofSeconds(5)));
		assertThat(record.mayStillRun(Instant.now())).isTrue();
		assertThat(store.release(key, false)).isEqualTo(KeyRelease.REFUSED_IN_PROGRESS);
		assertThat(store.inspect(key)).isNotNull();
		assertThat(store.release(key, true)).isEqualTo(KeyRelease.RELEASED);
		assertThat(store.inspect(key)).isNull();
		// The run that held the claim finishes late: its completion changes nothing.
		store.complete(key, claim, RETENTION);
		assertThat(store.inspect(key)).isNull();
	}

	@Test
	void aClaimWhoseLeaseEndedIsGoneAndTheResultIsRecorded() throws InterruptedException {
		IdempotencyKey key = key("short-lease");
		ClaimResult claim = store.claim(key, Duration.ofMillis(200), RETENTION);
		store.recordResult(key, claim, "\"ok\"");
		assertThat(store.inspect(key)).extracting(KeyRecord::resultPresent, KeyRecord::fingerprintPresent)
			.containsExactly(true, false);
		Thread.sleep(400);
		assertThat(store.inspect(key)).isNull();
		assertThat(store.release(key, false)).isEqualTo(KeyRelease.NOT_FOUND);
	}

	@Test
	void aLongKeyIsFoundByItsOriginalKey() {
		IdempotencyKey key = key("k".repeat(300));
		store.complete(key, store.claim(key, LEASE, RETENTION), RETENTION);
		assertThat(store.inspect(key)).extracting(KeyRecord::key)
			.isEqualTo(key.digestedBeyond(RedissonNames.MAX_KEY_LENGTH));
		assertThat(store.release(key, false)).isEqualTo(KeyRelease.RELEASED);
	}

	private static IdempotencyKey key(String value) {
		return new IdempotencyKey("inspector:tests", value);
	}

}

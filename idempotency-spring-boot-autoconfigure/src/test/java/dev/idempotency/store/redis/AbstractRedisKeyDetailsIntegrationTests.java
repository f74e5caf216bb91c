package dev.idempotency.store.redis;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.store.AbstractKeyDetailsContractTests;
import dev.idempotency.support.redis.KeyDetailsScripts;
import dev.idempotency.testsupport.TestRedisConnections;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key details contract for {@link RedisIdempotencyStore} on a real Redis, standalone or a
 * Cluster (one subclass each), and how long the details hash lives: with the entry, through lease,
 * renewal and retention.
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class AbstractRedisKeyDetailsIntegrationTests extends AbstractKeyDetailsContractTests {

	protected final String prefix = TestRedisConnections.uniqueKeyPrefix(getClass());

	protected StringRedisTemplate redis;

	protected RedisIdempotencyStore store;

	/**
	 * Connects to the Redis under test.
	 * @return a started connection factory
	 */
	protected abstract RedisConnectionFactory connect();

	/**
	 * Deletes this class's keys and disconnects.
	 * @param connectionFactory the factory {@link #connect()} returned
	 */
	protected abstract void disconnect(RedisConnectionFactory connectionFactory);

	@BeforeAll
	void connectStore() {
		this.redis = new StringRedisTemplate(connect());
		this.store = new RedisIdempotencyStore(this.redis, this.prefix);
	}

	@AfterAll
	void deleteKeysAndDisconnect() {
		if (this.redis != null) {
			disconnect(this.redis.getRequiredConnectionFactory());
		}
	}

	@Override
	protected IdempotencyStore store() {
		return this.store;
	}

	@Test
	void detailsLiveInAHashBesideTheEntryThatExpiresWithIt() {
		IdempotencyKey key = key("ttl");
		String entry = this.store.storageKey(key);
		String details = KeyDetailsScripts.detailsKey(entry);
		assertThat(details).isEqualTo("{" + entry + "}:details");
		ClaimResult claim = this.store.claim(key, LEASE, RETENTION);
		this.store.recordFingerprint(key, claim, FINGERPRINT_A);
		assertThat(this.redis.opsForHash().get(details, KeyDetailsScripts.FINGERPRINT)).isEqualTo(FINGERPRINT_A);
		assertThat(this.redis.getExpire(details)).as("seconds to live, while claimed")
			.isPositive()
			.isLessThanOrEqualTo(LEASE.toSeconds());
		assertThat(this.store.renew(key, claim, LEASE.multipliedBy(2))).isTrue();
		assertThat(this.redis.getExpire(details)).as("seconds to live, renewed").isGreaterThan(LEASE.toSeconds());
		this.store.complete(key, claim, RETENTION);
		assertThat(this.redis.getExpire(details)).as("seconds to live, completed")
			.isGreaterThan(RETENTION.minusMinutes(1).toSeconds());
		assertThat(this.redis.opsForValue().get(entry)).isEqualTo("COMPLETED");
	}

	@Test
	void aClaimTakenOverCannotRecordAnyMore() {
		IdempotencyKey key = key("lost-lease");
		ClaimResult first = this.store.claim(key, LEASE, RETENTION);
		this.store.release(key, first);
		ClaimResult second = this.store.claim(key, LEASE, RETENTION);
		this.store.recordFingerprint(key, second, FINGERPRINT_B);
		this.store.recordFingerprint(key, first, FINGERPRINT_A);
		this.store.recordResult(key, first, "\"late\"");
		this.store.complete(key, second, RETENTION);
		assertThat(this.store.recorded(key)).isEqualTo(new RecordedKey(FINGERPRINT_B, null));
	}

	@Test
	void detailsKeyKeepsAnEntrysOwnHashTag() {
		assertThat(KeyDetailsScripts.detailsKey("p:{orders}:1")).isEqualTo("p:{orders}:1:details");
		assertThat(KeyDetailsScripts.detailsKey("p:orders:1")).isEqualTo("{p:orders:1}:details");
	}

}

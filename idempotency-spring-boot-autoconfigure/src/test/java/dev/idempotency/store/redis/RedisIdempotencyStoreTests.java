package dev.idempotency.store.redis;

import java.time.Duration;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.testsupport.TestRedisConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests of {@link RedisIdempotencyStore} that need no Redis server: the key layout, and failures
 * when the server cannot be reached.
 */
class RedisIdempotencyStoreTests {

	private static final Duration LEASE = Duration.ofMinutes(5);

	private static final Duration RETENTION = Duration.ofDays(7);

	private final LettuceConnectionFactory unreachable = TestRedisConnections.unreachable();

	private final RedisIdempotencyStore store = new RedisIdempotencyStore(this.unreachable, "idempotency:");

	@AfterEach
	void destroy() {
		this.unreachable.destroy();
	}

	@Test
	void storageKeyIsThePrefixTheNamespaceAndTheKey() {
		assertThat(this.store.storageKey(new IdempotencyKey("points", "order-1"))).isEqualTo("idempotency:points:order-1");
	}

	@Test
	void storageKeyKeepsColonsInTheKeyAndEncodesThemInTheNamespace() {
		assertThat(this.store.storageKey(new IdempotencyKey("a", "b:c"))).isEqualTo("idempotency:a:b:c");
		assertThat(this.store.storageKey(new IdempotencyKey("a:b", "c"))).isEqualTo("idempotency:a%3Ab:c");
		assertThat(this.store.storageKey(new IdempotencyKey("100%:x", "c"))).isEqualTo("idempotency:100%25%3Ax:c");
	}

	@Test
	void storageKeyDigestsPartsLongerThanTheMaximum() {
		String fits = "k".repeat(RedisIdempotencyStore.MAX_KEY_LENGTH);
		assertThat(this.store.storageKey(new IdempotencyKey("points", fits))).isEqualTo("idempotency:points:" + fits);
		String entry = this.store.storageKey(new IdempotencyKey("points", fits + "k"));
		assertThat(entry).matches("idempotency:points:sha256:[0-9a-f]{64}");
		assertThat(this.store.storageKey(new IdempotencyKey("n".repeat(500), "k")))
			.matches("idempotency:sha256%3A[0-9a-f]{64}:k");
	}

	@Test
	void storageKeyMayHaveAnEmptyPrefix() {
		RedisIdempotencyStore unprefixed = new RedisIdempotencyStore(this.unreachable, "");
		assertThat(unprefixed.storageKey(new IdempotencyKey("points", "order-1"))).isEqualTo("points:order-1");
	}

	@Test
	void claimedValueCarriesTheTokenAndCompletedValueIsFixed() {
		assertThat(this.store.claimedValue(ClaimResult.claimed("abc"))).isEqualTo("PROCESSING:abc");
		assertThat(this.store.completedValue()).isEqualTo("COMPLETED");
		assertThatIllegalArgumentException().isThrownBy(() -> this.store.claimedValue(ClaimResult.duplicate()));
	}

	@Test
	void isALeasedStoreNamedRedis() {
		assertThat(this.store.isTransactional()).isFalse();
		assertThat(this.store.name()).isEqualTo("redis");
	}

	@Test
	void claimWhenRedisIsDownThrowsIdempotencyStoreException() {
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.claim(new IdempotencyKey("points", "order-1"), LEASE, RETENTION))
			.withMessageContaining("points:order-1")
			.withCauseInstanceOf(DataAccessException.class);
	}

	@Test
	void completeAndReleaseWhenRedisIsDownThrowIdempotencyStoreException() {
		IdempotencyKey key = new IdempotencyKey("points", "order-1");
		ClaimResult claim = ClaimResult.claimed("abc");
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.complete(key, claim, RETENTION));
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> this.store.release(key, claim));
	}

	@Test
	void leaseAndRetentionMustBePositive() {
		IdempotencyKey key = new IdempotencyKey("points", "order-1");
		assertThatIllegalArgumentException().isThrownBy(() -> this.store.claim(key, Duration.ZERO, RETENTION))
			.withMessageContaining("lease");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.store.complete(key, ClaimResult.claimed("abc"), Duration.ofSeconds(-1)))
			.withMessageContaining("retention");
	}

}

package dev.idempotency.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.store.AbstractIdempotencyStoreContractTests;
import dev.idempotency.testsupport.TestRedisConnections;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The store contract, plus the leased mode's own rules, for {@link RedisIdempotencyStore} on a real
 * Redis, standalone, a Cluster or a primary behind Sentinels (one subclass each). Redis judges leases
 * and retention by its own clock, which the contract's {@code MutableClock} cannot move: the tests
 * where time must pass use short real durations instead, and Redis expires entries itself, so there
 * is nothing to purge.
 */
@TestInstance(Lifecycle.PER_CLASS)
abstract class AbstractRedisIdempotencyStoreIntegrationTests extends AbstractIdempotencyStoreContractTests {

	private static final Duration SHORT = Duration.ofMillis(300);

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

	@Override
	protected ClaimResult claimAndSucceed(IdempotencyKey key, Duration retention) {
		ClaimResult claim = this.store.claim(key, LEASE, retention);
		if (claim.isClaimed()) {
			this.store.complete(key, claim, retention);
		}
		return claim;
	}

	@Override
	protected ClaimResult claimAndFail(IdempotencyKey key) {
		ClaimResult claim = this.store.claim(key, LEASE, RETENTION);
		if (claim.isClaimed()) {
			this.store.release(key, claim);
		}
		return claim;
	}

	/** Redis deletes expired entries itself. */
	@Override
	protected int purgeExpired() {
		return 0;
	}

	// The contract moves the clock by two hours; here the retention is short and really passes.
	@Override
	@Test
	protected void keyCanBeClaimedAgainAfterItsRetention() {
		claimAndSucceed(key("expired"), SHORT);
		awaitGone(key("expired"));
		assertThat(claimAndSucceed(key("expired")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(key("expired")).status()).isEqualTo(Status.DUPLICATE);
	}

	// Nothing to purge: an expired entry vanishes by itself, a retained one stays.
	@Override
	@Test
	protected void purgeDeletesExpiredRecordsOnly() {
		for (int i = 0; i < 3; i++) {
			claimAndSucceed(key("short-" + i), SHORT);
		}
		claimAndSucceed(key("long-0"), Duration.ofDays(10));
		claimAndSucceed(key("long-1"), Duration.ofDays(10));
		for (int i = 0; i < 3; i++) {
			awaitGone(key("short-" + i));
		}
		assertThat(claimAndSucceed(key("long-0")).status()).isEqualTo(Status.DUPLICATE);
		assertThat(claimAndSucceed(key("long-1")).status()).isEqualTo(Status.DUPLICATE);
		assertThat(claimAndSucceed(key("short-0")).status()).isEqualTo(Status.CLAIMED);
	}

	@Test
	void keyHeldUnderALeaseIsInProgress() {
		this.store.claim(key("held"), LEASE, RETENTION);
		assertThat(this.store.claim(key("held"), LEASE, RETENTION).status()).isEqualTo(Status.IN_PROGRESS);
	}

	@Test
	void expiredLeaseIsTakenOver() {
		this.store.claim(key("crashed"), SHORT, RETENTION);
		awaitGone(key("crashed"));
		assertThat(this.store.claim(key("crashed"), LEASE, RETENTION).status()).isEqualTo(Status.CLAIMED);
	}

	@Test
	void releaseByAStaleTokenDoesNotDeleteTheNewerClaim() {
		ClaimResult late = this.store.claim(key("slow-release"), SHORT, RETENTION);
		awaitGone(key("slow-release"));
		ClaimResult current = this.store.claim(key("slow-release"), LEASE, RETENTION);
		assertThat(current.isClaimed()).isTrue();
		this.store.release(key("slow-release"), late);
		assertThat(valueOf(key("slow-release"))).isEqualTo(this.store.claimedValue(current));
		assertThat(this.store.claim(key("slow-release"), LEASE, RETENTION).status()).isEqualTo(Status.IN_PROGRESS);
	}

	@Test
	void completeAfterTheLeaseWasTakenOverDoesNotOverwrite() {
		ClaimResult late = this.store.claim(key("slow-complete"), SHORT, RETENTION);
		awaitGone(key("slow-complete"));
		ClaimResult current = this.store.claim(key("slow-complete"), LEASE, RETENTION);
		this.store.complete(key("slow-complete"), late, RETENTION);
		assertThat(valueOf(key("slow-complete"))).isEqualTo(this.store.claimedValue(current));
		this.store.release(key("slow-complete"), current);
		assertThat(this.store.claim(key("slow-complete"), LEASE, RETENTION).status())
			.as("the late worker's complete must not have marked the key processed")
			.isEqualTo(Status.CLAIMED);
	}

	@Test
	void completeAfterTheLeaseExpiredWithoutTakeOverDoesNotMarkTheKey() {
		ClaimResult late = this.store.claim(key("expired-complete"), SHORT, RETENTION);
		awaitGone(key("expired-complete"));
		this.store.complete(key("expired-complete"), late, RETENTION);
		assertThat(this.redis.hasKey(this.store.storageKey(key("expired-complete")))).isFalse();
	}

	@Test
	void releaseOfACompletedKeyKeepsItProcessed() {
		ClaimResult claim = this.store.claim(key("done-release"), LEASE, RETENTION);
		this.store.complete(key("done-release"), claim, RETENTION);
		this.store.release(key("done-release"), claim);
		assertThat(this.store.claim(key("done-release"), LEASE, RETENTION).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void claimSentAgainAfterALostReplyIsGranted() {
		// go-redis#2985: the client re-sends the claim after the connection dropped, and the first
		// attempt had already set the key. It must not look like someone else's claim.
		RedisIdempotencyStore resending = new RedisIdempotencyStore(this.redis, this.prefix, () -> "same-token");
		ClaimResult first = resending.claim(key("resent"), LEASE, RETENTION);
		ClaimResult again = resending.claim(key("resent"), LEASE, RETENTION);
		assertThat(first.isClaimed()).isTrue();
		assertThat(again).isEqualTo(first);
		assertThat(this.store.claim(key("resent"), LEASE, RETENTION).status()).isEqualTo(Status.IN_PROGRESS);
	}

	@Test
	void scriptsAreSentAgainAfterTheServerLostItsScriptCache() {
		// As after a restart or a failover: EVALSHA answers NOSCRIPT, and the store falls back to EVAL.
		ClaimResult claim = this.store.claim(key("flushed"), LEASE, RETENTION);
		this.redis.execute((RedisCallback<Void>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
		this.store.complete(key("flushed"), claim, RETENTION);
		assertThat(valueOf(key("flushed"))).isEqualTo("COMPLETED");
		ClaimResult other = this.store.claim(key("flushed-release"), LEASE, RETENTION);
		this.redis.execute((RedisCallback<Void>) (connection) -> {
			connection.scriptingCommands().scriptFlush();
			return null;
		});
		this.store.release(key("flushed-release"), other);
		assertThat(this.redis.hasKey(this.store.storageKey(key("flushed-release")))).isFalse();
	}

	@Test
	void entriesHoldTheValuesTheKeyValueContractDescribes() {
		ClaimResult claim = this.store.claim(key("described"), LEASE, RETENTION);
		assertThat(valueOf(key("described"))).isEqualTo(this.store.claimedValue(claim)).startsWith("PROCESSING:");
		assertThat(ttl(key("described"))).isPositive().isLessThanOrEqualTo(LEASE);
		this.store.complete(key("described"), claim, Duration.ofHours(1));
		assertThat(valueOf(key("described"))).isEqualTo(this.store.completedValue()).isEqualTo("COMPLETED");
		assertThat(ttl(key("described"))).isGreaterThan(Duration.ofMinutes(59))
			.isLessThanOrEqualTo(Duration.ofHours(1));
	}

	@Test
	void entryKeyIsThePrefixTheNamespaceAndTheKey() {
		this.store.claim(new IdempotencyKey("points", "order-1"), LEASE, RETENTION);
		assertThat(this.redis.hasKey(this.prefix + "points:order-1")).isTrue();
	}

	@Test
	void namespacesWithAColonDoNotShareEntries() {
		assertThat(claimAndSucceed(new IdempotencyKey("a:b", "c")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(new IdempotencyKey("a", "b:c")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(new IdempotencyKey("a:b", "c")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void longKeyIsStoredAsADigest() {
		IdempotencyKey key = key("k".repeat(5_000));
		claimAndSucceed(key);
		String entry = this.store.storageKey(key);
		assertThat(entry).startsWith(this.prefix + "contract:sha256:")
			.hasSize(this.prefix.length() + "contract:".length() + 71);
		assertThat(this.redis.opsForValue().get(entry)).isEqualTo("COMPLETED");
	}

	@Test
	void manyConcurrentClaimsOfOneKeyGrantExactlyOne() throws Exception {
		int threads = 32;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			IdempotencyKey key = key("crowd");
			CyclicBarrier start = new CyclicBarrier(threads);
			List<Future<ClaimResult>> results = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				results.add(executor.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					return this.store.claim(key, LEASE, RETENTION);
				}));
			}
			List<Status> statuses = new ArrayList<>();
			for (Future<ClaimResult> result : results) {
				statuses.add(result.get(30, TimeUnit.SECONDS).status());
			}
			assertThat(statuses).filteredOn(Status.CLAIMED::equals).hasSize(1);
			assertThat(statuses).filteredOn(Status.IN_PROGRESS::equals).hasSize(threads - 1);
		}
		finally {
			executor.shutdownNow();
		}
	}

	private void awaitGone(IdempotencyKey key) {
		String entry = this.store.storageKey(key);
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> !Boolean.TRUE.equals(this.redis.hasKey(entry)));
	}

	private String valueOf(IdempotencyKey key) {
		return this.redis.opsForValue().get(this.store.storageKey(key));
	}

	private Duration ttl(IdempotencyKey key) {
		Long millis = this.redis.getExpire(this.store.storageKey(key), TimeUnit.MILLISECONDS);
		return Duration.ofMillis((millis != null) ? millis : -1);
	}

}

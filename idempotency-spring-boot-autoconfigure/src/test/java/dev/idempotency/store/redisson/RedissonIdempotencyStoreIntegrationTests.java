package dev.idempotency.store.redisson;

import java.time.Duration;
import java.util.List;

import dev.idempotency.core.ClaimResult.Status;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.FailureKind;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.store.AbstractIdempotencyStoreContractTests;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.testsupport.TcpProxy;
import dev.idempotency.testsupport.TestRedisConnections;
import dev.idempotency.testsupport.TestRedissonClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The store contract, plus the leased mode's own rules, for {@link RedissonIdempotencyStore} on a
 * real Redis. As for the Redis store, Redis judges leases and retention by its own clock, so the
 * tests where time must pass use short real durations and there is nothing to purge.
 */
class RedissonIdempotencyStoreIntegrationTests extends AbstractIdempotencyStoreContractTests {

	/** The classifier as the auto-configuration builds it with Redisson on the class path. */
	private static final DefaultFailureClassifier CLASSIFIER = new DefaultFailureClassifier(
			List.of(new RedissonFailureTypes()), List.of(), List.of());

	private static final Duration SHORT = Duration.ofMillis(300);

	private static final String PREFIX = TestRedisConnections
		.uniqueKeyPrefix(RedissonIdempotencyStoreIntegrationTests.class);

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
			redisson.shutdown();
		}
	}

	@Override
	protected IdempotencyStore store() {
		return store;
	}

	@Override
	protected ClaimResult claimAndSucceed(IdempotencyKey key, Duration retention) {
		ClaimResult claim = store.claim(key, LEASE, retention);
		if (claim.isClaimed()) {
			store.complete(key, claim, retention);
		}
		return claim;
	}

	@Override
	protected ClaimResult claimAndFail(IdempotencyKey key) {
		ClaimResult claim = store.claim(key, LEASE, RETENTION);
		if (claim.isClaimed()) {
			store.release(key, claim);
		}
		return claim;
	}

	/** Redis deletes expired entries itself. */
	@Override
	protected int purgeExpired() {
		return 0;
	}

	@Override
	@Test
	protected void keyCanBeClaimedAgainAfterItsRetention() {
		claimAndSucceed(key("expired"), SHORT);
		awaitGone(key("expired"));
		assertThat(claimAndSucceed(key("expired")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(key("expired")).status()).isEqualTo(Status.DUPLICATE);
	}

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
		store.claim(key("held"), LEASE, RETENTION);
		assertThat(store.claim(key("held"), LEASE, RETENTION).status()).isEqualTo(Status.IN_PROGRESS);
	}

	@Test
	void expiredLeaseIsTakenOver() {
		store.claim(key("crashed"), SHORT, RETENTION);
		awaitGone(key("crashed"));
		assertThat(store.claim(key("crashed"), LEASE, RETENTION).status()).isEqualTo(Status.CLAIMED);
	}

	@Test
	void releaseByAStaleTokenDoesNotDeleteTheNewerClaim() {
		ClaimResult late = store.claim(key("slow-release"), SHORT, RETENTION);
		awaitGone(key("slow-release"));
		ClaimResult current = store.claim(key("slow-release"), LEASE, RETENTION);
		assertThat(current.isClaimed()).isTrue();
		store.release(key("slow-release"), late);
		assertThat(valueOf(key("slow-release"))).isEqualTo("PROCESSING:" + current.token());
		assertThat(store.claim(key("slow-release"), LEASE, RETENTION).status()).isEqualTo(Status.IN_PROGRESS);
	}

	@Test
	void completeAfterTheLeaseWasTakenOverDoesNotOverwrite() {
		ClaimResult late = store.claim(key("slow-complete"), SHORT, RETENTION);
		awaitGone(key("slow-complete"));
		ClaimResult current = store.claim(key("slow-complete"), LEASE, RETENTION);
		store.complete(key("slow-complete"), late, RETENTION);
		assertThat(valueOf(key("slow-complete"))).isEqualTo("PROCESSING:" + current.token());
		store.release(key("slow-complete"), current);
		assertThat(store.claim(key("slow-complete"), LEASE, RETENTION).status()).isEqualTo(Status.CLAIMED);
	}

	@Test
	void releaseOfACompletedKeyKeepsItProcessed() {
		ClaimResult claim = store.claim(key("done-release"), LEASE, RETENTION);
		store.complete(key("done-release"), claim, RETENTION);
		store.release(key("done-release"), claim);
		assertThat(store.claim(key("done-release"), LEASE, RETENTION).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void claimSentAgainAfterALostReplyIsGranted() {
		RedissonIdempotencyStore resending = new RedissonIdempotencyStore(redisson, PREFIX, () -> "same-token");
		ClaimResult first = resending.claim(key("resent"), LEASE, RETENTION);
		assertThat(resending.claim(key("resent"), LEASE, RETENTION)).isEqualTo(first);
		assertThat(store.claim(key("resent"), LEASE, RETENTION).status()).isEqualTo(Status.IN_PROGRESS);
	}

	@Test
	void entriesArePlainStringsWithTheLeaseThenTheRetentionAsTimeToLive() {
		ClaimResult claim = store.claim(new IdempotencyKey("entries", "order-1"), LEASE, RETENTION);
		String entry = PREFIX + "entries:order-1";
		assertThat(redisson.getBucket(entry, StringCodec.INSTANCE).get()).isEqualTo("PROCESSING:" + claim.token());
		assertThat(redisson.getBucket(entry).remainTimeToLive()).isPositive().isLessThanOrEqualTo(LEASE.toMillis());
		store.complete(new IdempotencyKey("entries", "order-1"), claim, Duration.ofHours(1));
		assertThat(redisson.getBucket(entry, StringCodec.INSTANCE).get()).isEqualTo("COMPLETED");
		assertThat(redisson.getBucket(entry).remainTimeToLive()).isGreaterThan(Duration.ofMinutes(59).toMillis());
	}

	@Test
	void namespacesWithAColonDoNotShareEntries() {
		assertThat(claimAndSucceed(new IdempotencyKey("a:b", "c")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(new IdempotencyKey("a", "b:c")).status()).isEqualTo(Status.CLAIMED);
		assertThat(claimAndSucceed(new IdempotencyKey("a:b", "c")).status()).isEqualTo(Status.DUPLICATE);
	}

	@Test
	void probeAnswersWhileRedisIsUpAndFailsAsInfrastructureWhenItIsCut() {
		store.probe();
		try (TcpProxy proxy = TcpProxy.start(TestRedisConnections.host(), TestRedisConnections.port())) {
			RedissonClient proxied = TestRedissonClients.client("127.0.0.1", proxy.port());
			try {
				RedissonIdempotencyStore cut = new RedissonIdempotencyStore(proxied, PREFIX);
				cut.probe();
				proxy.cut();
				long started = System.nanoTime();
				assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(cut::probe)
					.satisfies((ex) -> assertThat(CLASSIFIER.classify(ex))
						.isEqualTo(FailureKind.INFRASTRUCTURE));
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(6));
				assertThatExceptionOfType(IdempotencyStoreException.class)
					.isThrownBy(() -> cut.claim(key("cut"), LEASE, RETENTION))
					.satisfies((ex) -> assertThat(CLASSIFIER.classify(ex))
						.isEqualTo(FailureKind.INFRASTRUCTURE));
			}
			finally {
				proxied.shutdown();
			}
		}
	}

	private static void awaitGone(IdempotencyKey key) {
		String entry = store.storageKey(key);
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> !redisson.getBucket(entry).isExists());
	}

	private static String valueOf(IdempotencyKey key) {
		return redisson.<String>getBucket(store.storageKey(key), StringCodec.INSTANCE).get();
	}

}

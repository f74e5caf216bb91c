package dev.idempotency.store.redisson;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.core.FailureKind;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyLock;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.testsupport.TcpProxy;
import dev.idempotency.testsupport.TestRedisConnections;
import dev.idempotency.testsupport.TestRedissonClients;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * {@link RedissonIdempotencyLock} on a real Redis: waiting, giving up, batches, lapsed leases, the
 * watchdog, and Redis going away.
 */
class RedissonIdempotencyLockIntegrationTests {

	/** The classifier as the auto-configuration builds it with Redisson on the class path. */
	private static final DefaultFailureClassifier CLASSIFIER = new DefaultFailureClassifier(
			List.of(new RedissonFailureTypes()), List.of(), List.of());

	private static final Duration LEASE = Duration.ofMinutes(5);

	private static final String PREFIX = TestRedisConnections
		.uniqueKeyPrefix(RedissonIdempotencyLockIntegrationTests.class);

	private static RedissonClient redisson;

	private final ExecutorService executor = Executors.newFixedThreadPool(4);

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

	@AfterEach
	void stopThreads() {
		this.executor.shutdownNow();
	}

	@Test
	void secondDeliveryOfAKeyWaitsUntilTheFirstReleasesIt() throws Exception {
		RedissonIdempotencyLock lock = lock(Duration.ofSeconds(5), null);
		IdempotencyLock.Held first = lock.acquire(List.of(key("waited")), LEASE);
		long started = System.nanoTime();
		Future<Long> second = this.executor.submit(() -> {
			try (IdempotencyLock.Held held = lock.acquire(List.of(key("waited")), LEASE)) {
				return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
			}
		});
		Thread.sleep(400);
		assertThat(second).isNotDone();
		first.close();
		assertThat(second.get(5, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(400);
	}

	@Test
	void deliveryThatWaitedPastTheWaitTimeIsInProgress() throws Exception {
		RedissonIdempotencyLock lock = lock(Duration.ofMillis(200), null);
		try (IdempotencyLock.Held held = lock.acquire(List.of(key("busy")), LEASE)) {
			Future<?> second = this.executor.submit(() -> lock.acquire(List.of(key("busy")), LEASE));
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> second.get(5, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(IdempotencyInProgressException.class);
		}
	}

	@Test
	void otherKeysAndOtherNamespacesAreNotBlocked() throws Exception {
		RedissonIdempotencyLock lock = lock(Duration.ZERO, null);
		try (IdempotencyLock.Held held = lock.acquire(List.of(new IdempotencyKey("points", "k")), LEASE)) {
			this.executor.submit(() -> lock.acquire(List.of(new IdempotencyKey("shipping", "k")), LEASE).close())
				.get(5, TimeUnit.SECONDS);
			this.executor.submit(() -> lock.acquire(List.of(new IdempotencyKey("points", "k2")), LEASE).close())
				.get(5, TimeUnit.SECONDS);
		}
	}

	@Test
	void batchLocksEveryKeyAndBatchesInOppositeOrdersDoNotDeadlock() throws Exception {
		RedissonIdempotencyLock lock = lock(Duration.ofSeconds(10), null);
		try (IdempotencyLock.Held batch = lock.acquire(List.of(key("b-1"), key("b-2"), key("b-1")), LEASE)) {
			Future<?> single = this.executor.submit(() -> lock.acquire(List.of(key("b-2")), LEASE).close());
			Thread.sleep(300);
			assertThat(single).isNotDone();
			batch.close();
			single.get(5, TimeUnit.SECONDS);
		}
		CyclicBarrier start = new CyclicBarrier(2);
		AtomicInteger locked = new AtomicInteger();
		List<Future<?>> batches = new ArrayList<>();
		for (List<IdempotencyKey> keys : List.of(List.of(key("x"), key("y")), List.of(key("y"), key("x")))) {
			batches.add(this.executor.submit(() -> {
				for (int round = 0; round < 20; round++) {
					start.await(10, TimeUnit.SECONDS);
					try (IdempotencyLock.Held held = lock.acquire(keys, LEASE)) {
						locked.incrementAndGet();
					}
				}
				return null;
			}));
		}
		for (Future<?> batch : batches) {
			batch.get(60, TimeUnit.SECONDS);
		}
		assertThat(locked).hasValue(40);
	}

	@Test
	void lockReleasedFromAnotherThreadIsReleasedForTheThreadThatTookIt() throws Exception {
		RedissonIdempotencyLock lock = lock(Duration.ZERO, null);
		IdempotencyLock.Held held = this.executor.submit(() -> lock.acquire(List.of(key("handed-over")), LEASE))
			.get(5, TimeUnit.SECONDS);
		assertThat(redisson.getLock(lock.lockName(key("handed-over"))).isLocked()).isTrue();
		held.close();
		assertThat(redisson.getLock(lock.lockName(key("handed-over"))).isLocked()).isFalse();
	}

	@Test
	void lockWhoseLeaseLapsedMidMethodGoesToTheNextDeliveryAndTheLateReleaseNeitherThrowsNorFreesIt()
			throws Exception {
		RedissonIdempotencyLock lock = lock(Duration.ofSeconds(5), Duration.ofMillis(500));
		IdempotencyLock.Held slow = lock.acquire(List.of(key("lapsed")), LEASE);
		long started = System.nanoTime();
		IdempotencyLock.Held next = this.executor.submit(() -> lock.acquire(List.of(key("lapsed")), LEASE))
			.get(5, TimeUnit.SECONDS);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(300),
				Duration.ofSeconds(3));
		assertThatNoException().isThrownBy(slow::close);
		assertThat(redisson.getLock(lock.lockName(key("lapsed"))).isLocked())
			.as("the late release must not free the next delivery's lock")
			.isTrue();
		next.close();
	}

	@Test
	void withoutALeaseTimeTheWatchdogKeepsTheLockPastItsTimeout() throws Exception {
		Config config = new Config().setLockWatchdogTimeout(1_000);
		config.useSingleServer()
			.setAddress("redis://" + TestRedisConnections.host() + ":" + TestRedisConnections.port())
			.setConnectionMinimumIdleSize(1);
		RedissonClient watched = Redisson.create(config);
		try {
			RedissonIdempotencyLock lock = new RedissonIdempotencyLock(watched, PREFIX, Duration.ZERO, null);
			try (IdempotencyLock.Held held = lock.acquire(List.of(key("watched")), LEASE)) {
				Thread.sleep(2_500);
				assertThatExceptionOfType(Exception.class)
					.isThrownBy(() -> this.executor.submit(() -> lock.acquire(List.of(key("watched")), LEASE))
						.get(5, TimeUnit.SECONDS))
					.havingCause()
					.isInstanceOf(IdempotencyInProgressException.class);
			}
		}
		finally {
			watched.shutdown();
		}
	}

	@Test
	void redisUnreachableWhileLockingIsAnInfrastructureFailureAndReleaseDoesNotThrow() {
		try (TcpProxy proxy = TcpProxy.start(TestRedisConnections.host(), TestRedisConnections.port())) {
			RedissonClient proxied = TestRedissonClients.client("127.0.0.1", proxy.port());
			try {
				RedissonIdempotencyLock lock = new RedissonIdempotencyLock(proxied, PREFIX, Duration.ofSeconds(1),
						null);
				IdempotencyLock.Held heldBeforeTheCut = lock.acquire(List.of(key("before-cut")), LEASE);
				proxy.cut();
				assertThatExceptionOfType(IdempotencyStoreException.class)
					.isThrownBy(() -> lock.acquire(List.of(key("cut")), LEASE))
					.satisfies((ex) -> assertThat(CLASSIFIER.classify(ex))
						.isEqualTo(FailureKind.INFRASTRUCTURE));
				assertThatNoException().isThrownBy(heldBeforeTheCut::close);
			}
			finally {
				proxied.shutdown();
			}
		}
	}

	private static RedissonIdempotencyLock lock(Duration waitTime, @Nullable Duration leaseTime) {
		return new RedissonIdempotencyLock(redisson, PREFIX, waitTime, leaseTime);
	}

	private static IdempotencyKey key(String value) {
		return new IdempotencyKey("lock-tests", value);
	}

}

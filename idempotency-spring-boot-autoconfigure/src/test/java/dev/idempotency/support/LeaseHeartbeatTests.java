package dev.idempotency.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.IntStream;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.atLeast;
import static org.mockito.Mockito.atLeastOnce;
import static org.mockito.Mockito.clearInvocations;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

class LeaseHeartbeatTests {

	private static final IdempotencyKey KEY = new IdempotencyKey("orders", "o-1");

	private final ScheduledExecutorService scheduler = DaemonSchedulers.singleThread("lease-renewal-test");

	private final LeaseRenewals renewals = new LeaseRenewals(this.scheduler);

	@AfterEach
	void stop() {
		this.scheduler.shutdownNow();
	}

	@Test
	void hundredConcurrentClaimsScheduleOneTask() throws Exception {
		IdempotencyStore store = mock(IdempotencyStore.class);
		given(store.renew(any(), any(), any())).willReturn(true);
		ExecutorService threads = Executors.newFixedThreadPool(16);
		List<LeaseHeartbeat> running;
		try {
			CountDownLatch go = new CountDownLatch(1);
			List<CompletableFuture<LeaseHeartbeat>> starts = IntStream.range(0, 100)
				.mapToObj((i) -> CompletableFuture.supplyAsync(() -> {
					awaitQuietly(go);
					return LeaseHeartbeat.start(store, List.of(new IdempotencyKey("orders", "c-" + i)),
							List.of(ClaimResult.claimed("t-" + i)), Duration.ofMillis(300));
				}, threads))
				.toList();
			go.countDown();
			running = new ArrayList<>();
			for (CompletableFuture<LeaseHeartbeat> start : starts) {
				running.add(start.get());
			}
		}
		finally {
			threads.shutdownNow();
		}
		try {
			// One sweep on the shared scheduler, not one task per claim.
			assertThat(LeaseRenewals.shared().scheduledTasks()).isEqualTo(1);
			assertThat(LeaseRenewals.shared().live()).isGreaterThanOrEqualTo(100);
			for (int i = 0; i < 100; i++) {
				IdempotencyKey key = new IdempotencyKey("orders", "c-" + i);
				ClaimResult claim = ClaimResult.claimed("t-" + i);
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> verify(store, atLeastOnce()).renew(key, claim, Duration.ofMillis(300)));
			}
		}
		finally {
			running.forEach(LeaseHeartbeat::close);
		}
		assertThat(LeaseRenewals.shared().scheduledTasks()).isEqualTo(1);
	}

	@Test
	void closedHeartbeatsLeaveNothingBehind() {
		IdempotencyStore store = mock(IdempotencyStore.class);
		List<LeaseHeartbeat> running = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			running.add(LeaseHeartbeat.start(this.renewals, store, List.of(new IdempotencyKey("orders", "o-" + i)),
					List.of(ClaimResult.claimed("t-" + i)), Duration.ofSeconds(30)));
		}
		assertThat(this.renewals.live()).isEqualTo(1000);
		assertThat(this.renewals.scheduledTasks()).isEqualTo(1);
		running.forEach(LeaseHeartbeat::close);
		// Each delivery joins the sweep and leaves it when its method returns: a closed heartbeat that
		// stayed would be renewed, and pile up at the delivery rate.
		assertThat(this.renewals.live()).isZero();
		assertThat(this.renewals.scheduledTasks()).isEqualTo(1);
		verify(store, never()).renew(any(), any(), any());
	}

	@Test
	void renewsAHeldClaimUntilClosed() {
		IdempotencyStore store = mock(IdempotencyStore.class);
		ClaimResult claim = ClaimResult.claimed("t-1");
		given(store.renew(eq(KEY), eq(claim), any())).willReturn(true);
		LeaseHeartbeat heartbeat = LeaseHeartbeat.start(this.renewals, store, List.of(KEY), List.of(claim),
				Duration.ofMillis(150));
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> verify(store, atLeast(2)).renew(KEY, claim, Duration.ofMillis(150)));
		heartbeat.close();
		clearInvocations(store);
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
			.untilAsserted(() -> verify(store, never()).renew(any(), any(), any()));
	}

	@Test
	void renewsBeforeTheLeaseEnds() {
		IdempotencyStore store = mock(IdempotencyStore.class);
		ClaimResult claim = ClaimResult.claimed("t-1");
		List<Long> renewedAt = Collections.synchronizedList(new ArrayList<>());
		given(store.renew(eq(KEY), eq(claim), any())).willAnswer((invocation) -> renewedAt.add(System.nanoTime()));
		long started = System.nanoTime();
		try (LeaseHeartbeat heartbeat = LeaseHeartbeat.start(this.renewals, store, List.of(KEY), List.of(claim),
				Duration.ofMillis(1200))) {
			await().atMost(Duration.ofSeconds(10)).until(() -> renewedAt.size() >= 3);
		}
		List<Long> times = new ArrayList<>(renewedAt);
		times.add(0, started);
		for (int i = 1; i < 3; i++) {
			Duration sincePrevious = Duration.ofNanos(times.get(i) - times.get(i - 1));
			// not before a third of the lease; on an idle scheduler, well before the lease ends
			assertThat(sincePrevious).isGreaterThanOrEqualTo(Duration.ofMillis(350))
				.isLessThan(Duration.ofMillis(1200));
		}
	}

	@Test
	void aShorterLeaseMakesTheSweepOftenEnoughForIt() {
		IdempotencyStore store = mock(IdempotencyStore.class);
		ClaimResult claim = ClaimResult.claimed("t-1");
		given(store.renew(any(), any(), any())).willReturn(true);
		try (LeaseHeartbeat slow = LeaseHeartbeat.start(this.renewals, store,
				List.of(new IdempotencyKey("orders", "slow")), List.of(ClaimResult.claimed("t-0")),
				Duration.ofMinutes(5));
				LeaseHeartbeat fast = LeaseHeartbeat.start(this.renewals, store, List.of(KEY), List.of(claim),
						Duration.ofMillis(150))) {
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> verify(store, atLeast(2)).renew(KEY, claim, Duration.ofMillis(150)));
			assertThat(this.renewals.scheduledTasks()).isEqualTo(1);
		}
	}

	@Test
	void stopsRenewingAClaimNoLongerHeld() {
		IdempotencyStore store = mock(IdempotencyStore.class);
		ClaimResult claim = ClaimResult.claimed("t-1");
		given(store.name()).willReturn("test");
		given(store.renew(eq(KEY), eq(claim), any())).willReturn(false);
		try (LeaseHeartbeat heartbeat = LeaseHeartbeat.start(this.renewals, store, List.of(KEY), List.of(claim),
				Duration.ofMillis(150))) {
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> verify(store).renew(eq(KEY), eq(claim), any()));
			clearInvocations(store);
			await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
				.untilAsserted(() -> verify(store, never()).renew(any(), any(), any()));
		}
	}

	@Test
	void aRenewalThatFailedIsTriedAgain() {
		IdempotencyStore store = mock(IdempotencyStore.class);
		ClaimResult claim = ClaimResult.claimed("t-1");
		given(store.name()).willReturn("test");
		given(store.renew(eq(KEY), eq(claim), any())).willThrow(new IllegalStateException("store down"))
			.willReturn(true);
		try (LeaseHeartbeat heartbeat = LeaseHeartbeat.start(this.renewals, store, List.of(KEY), List.of(claim),
				Duration.ofMillis(150))) {
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> verify(store, atLeast(2)).renew(KEY, claim,
					Duration.ofMillis(150)));
		}
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}

package dev.idempotency.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.atLeastOnce;
import static org.mockito.Mockito.clearInvocations;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

class LeaseHeartbeatTests {

	private static final IdempotencyKey KEY = new IdempotencyKey("orders", "o-1");

	@Test
	void closedHeartbeatsLeaveNothingQueued() {
		IdempotencyStore store = mock(IdempotencyStore.class);
		int before = LeaseHeartbeat.queuedRenewals();
		List<LeaseHeartbeat> running = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			running.add(LeaseHeartbeat.start(store, List.of(new IdempotencyKey("orders", "o-" + i)),
					List.of(ClaimResult.claimed("t-" + i)), Duration.ofSeconds(30)));
		}
		assertThat(LeaseHeartbeat.queuedRenewals()).isEqualTo(before + 1000);
		running.forEach(LeaseHeartbeat::close);
		// Each delivery schedules one renewal and cancels it when its method returns: a cancelled
		// renewal that stayed queued for a third of the lease would pile up at the delivery rate.
		assertThat(LeaseHeartbeat.queuedRenewals()).isEqualTo(before);
		verify(store, never()).renew(any(), any(), any());
	}

	@Test
	void renewsAHeldClaimUntilClosed() {
		IdempotencyStore store = mock(IdempotencyStore.class);
		ClaimResult claim = ClaimResult.claimed("t-1");
		given(store.renew(eq(KEY), eq(claim), any())).willReturn(true);
		LeaseHeartbeat heartbeat = LeaseHeartbeat.start(store, List.of(KEY), List.of(claim), Duration.ofMillis(150));
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> verify(store, atLeastOnce()).renew(KEY, claim, Duration.ofMillis(150)));
		heartbeat.close();
		clearInvocations(store);
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
			.untilAsserted(() -> verify(store, never()).renew(any(), any(), any()));
	}

	@Test
	void stopsRenewingAClaimNoLongerHeld() {
		IdempotencyStore store = mock(IdempotencyStore.class);
		ClaimResult claim = ClaimResult.claimed("t-1");
		given(store.name()).willReturn("test");
		given(store.renew(eq(KEY), eq(claim), any())).willReturn(false);
		try (LeaseHeartbeat heartbeat = LeaseHeartbeat.start(store, List.of(KEY), List.of(claim),
				Duration.ofMillis(150))) {
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> verify(store).renew(eq(KEY), eq(claim), any()));
			clearInvocations(store);
			await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
				.untilAsserted(() -> verify(store, never()).renew(any(), any(), any()));
		}
	}

}

package dev.idempotency.autoconfigure.health;

import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.support.DefaultFailureClassifier;
import dev.idempotency.support.FailClosedCircuits;
import dev.idempotency.support.FailClosedSettings;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyListenersHealthIndicator} on real fail-closed circuits.
 */
class IdempotencyListenersHealthIndicatorTests {

	private final FailClosedCircuits circuits = new FailClosedCircuits(new DefaultFailureClassifier(),
			() -> {
			}, new FailClosedSettings(Duration.ofSeconds(1), Duration.ofSeconds(1)), List::of);

	@Test
	void upWithNothingPausedWhenNoListenerIsPaused() {
		this.circuits.circuit("orders");
		Health health = new IdempotencyListenersHealthIndicator(this.circuits, Duration.ofMinutes(1)).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("paused", List.of()).doesNotContainKey("listeners");
	}

	@Test
	void pausedListenerWithinTheThresholdIsUpWithItsDetails() {
		Instant before = Instant.now();
		this.circuits.circuit("payments");
		this.circuits.circuit("orders")
			.open(new IdempotencyStoreException("Table idempotency_record cannot be queried",
					new ConnectException("Connection refused")));
		Health health = new IdempotencyListenersHealthIndicator(this.circuits, Duration.ofMinutes(1)).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("paused", List.of("orders"))
			.containsEntry("pausedThreshold", 60_000L);
		@SuppressWarnings("unchecked")
		Map<String, Map<String, Object>> listeners = (Map<String, Map<String, Object>>) health.getDetails()
			.get("listeners");
		assertThat(listeners).containsOnlyKeys("orders");
		assertThat(listeners.get("orders")).containsEntry("cause", ConnectException.class.getName())
			.containsKeys("since", "pausedFor");
		assertThat(Instant.parse((String) listeners.get("orders").get("since"))).isBetween(before.minusSeconds(1),
				Instant.now());
	}

	@Test
	void listenerPausedLongerThanTheThresholdIsDown() throws InterruptedException {
		this.circuits.circuit("orders").open(new ConnectException("Connection refused"));
		Thread.sleep(50);
		Health health = new IdempotencyListenersHealthIndicator(this.circuits, Duration.ofMillis(10)).health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("paused", List.of("orders"));
	}

	@Test
	void resumedListenerIsUpAgain() throws InterruptedException {
		this.circuits.circuit("orders").open(new ConnectException("Connection refused"));
		Thread.sleep(50);
		IdempotencyListenersHealthIndicator indicator = new IdempotencyListenersHealthIndicator(this.circuits,
				Duration.ofMillis(10));
		assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
		this.circuits.circuit("orders").close();
		Health health = indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("paused", List.of());
	}

}

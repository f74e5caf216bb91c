package dev.idempotency.outbox.autoconfigure;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.idempotency.outbox.OutboxBacklog;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.dao.DataAccessResourceFailureException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status policy of {@link IdempotencyOutboxHealthIndicator} over outbox snapshots (the indicator
 * on a real outbox table is in {@link IdempotencyHealthAutoConfigurationTests} and
 * {@link IdempotencyHealthIntegrationTests}).
 */
class IdempotencyOutboxHealthIndicatorTests {

	@Test
	void emptyOutboxIsUpWithCountsAndThresholds() {
		Health health = indicator(new OutboxBacklog.Snapshot(0, 0, null), false).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("pending", 0L)
			.containsEntry("deadRows", 0L)
			.containsEntry("maxOldestAge", 300_000L)
			.containsEntry("maxBacklog", 100L)
			.containsEntry("deadRowsDown", false)
			.doesNotContainKeys("oldestPendingAge", "reasons");
	}

	@Test
	void backlogWithinTheThresholdsIsUp() {
		Health health = indicator(new OutboxBacklog.Snapshot(100, 0, Duration.ofMinutes(5)), false).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("pending", 100L).containsEntry("oldestPendingAge", 300_000L);
	}

	@Test
	void oldestUnsentRowOlderThanTheThresholdIsDown() {
		Health health = indicator(new OutboxBacklog.Snapshot(1, 0, Duration.ofMinutes(6)), false).health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("reasons",
				List.of("oldest unsent row is older than 300000 ms"));
	}

	@Test
	void backlogAboveTheThresholdIsDown() {
		Health health = indicator(new OutboxBacklog.Snapshot(101, 0, Duration.ofSeconds(1)), false).health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("reasons", List.of("more than 100 rows are unsent"));
	}

	@Test
	void deadRowsAreCountedAndStayUpByDefault() {
		Health health = indicator(new OutboxBacklog.Snapshot(0, 3, null), false).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("deadRows", 3L);
	}

	@Test
	void deadRowsAreDownWhenChosen() {
		Health health = indicator(new OutboxBacklog.Snapshot(0, 3, null), true).health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("deadRows", 3L)
			.containsEntry("reasons", List.of("DEAD rows wait to be re-driven"));
	}

	@Test
	void unreadableTableIsDownWithTheException() {
		OutboxBacklog failing = () -> {
			throw new DataAccessResourceFailureException("Could not read the outbox",
					new SQLException("Connection refused"));
		};
		Health health = new IdempotencyOutboxHealthIndicator(failing, Duration.ofMinutes(5), 100, false,
				Duration.ofSeconds(1))
			.health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails().get("error")).asString()
			.startsWith(DataAccessResourceFailureException.class.getName());
		assertThat(health.getDetails()).containsEntry("cause", SQLException.class.getName() + ": Connection refused");
	}

	@Test
	void tableThatDoesNotAnswerInTimeIsDown() {
		CountDownLatch release = new CountDownLatch(1);
		OutboxBacklog hanging = () -> {
			try {
				release.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return new OutboxBacklog.Snapshot(0, 0, null);
		};
		try {
			Health health = new IdempotencyOutboxHealthIndicator(hanging, Duration.ofMinutes(5), 100, false,
					Duration.ofMillis(100))
				.health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails().get("error")).asString().contains("100 ms");
		}
		finally {
			release.countDown();
		}
	}

	private static IdempotencyOutboxHealthIndicator indicator(OutboxBacklog.Snapshot snapshot, boolean deadRowsDown) {
		return new IdempotencyOutboxHealthIndicator(() -> snapshot, Duration.ofMinutes(5), 100, deadRowsDown,
				Duration.ofSeconds(5));
	}

}

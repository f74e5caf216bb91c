package dev.idempotency.outbox.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

import dev.idempotency.autoconfigure.health.BoundedCall;
import dev.idempotency.outbox.OutboxBacklog;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.core.NestedExceptionUtils;

/**
 * Health of the transactional outbox, from one {@link OutboxBacklog#snapshot() snapshot} of its
 * table (read on a thread of its own, within a timeout):
 * <ul>
 * <li>DOWN when the oldest unsent row is older than {@code maxOldestAge}, or more rows than
 * {@code maxBacklog} wait: the relay does not keep up or cannot send;</li>
 * <li>DOWN when DEAD rows are present and {@code deadRowsDown} is on; otherwise DEAD rows are only
 * counted in the details: they wait for an operator to re-drive them, and reporting the whole
 * application DOWN for them would take a healthy instance out of a load balancer;</li>
 * <li>DOWN when the table cannot be read in time;</li>
 * <li>UP otherwise.</li>
 * </ul>
 * Details: {@code pending}, {@code deadRows}, {@code oldestPendingAge} (milliseconds, absent when
 * nothing is pending), the thresholds, and {@code reasons} when DOWN.
 *
 * @since 0.2.0
 */
public class IdempotencyOutboxHealthIndicator implements HealthIndicator {

	private final Duration maxOldestAge;

	private final long maxBacklog;

	private final boolean deadRowsDown;

	private final Duration timeout;

	private final BoundedCall<OutboxBacklog.Snapshot> snapshot;

	/**
	 * Creates the indicator.
	 * @param backlog reads the outbox table
	 * @param maxOldestAge age of the oldest unsent row above which the outbox is DOWN
	 * @param maxBacklog number of unsent rows above which the outbox is DOWN
	 * @param deadRowsDown whether DEAD rows make the outbox DOWN
	 * @param timeout how long reading the table may take
	 */
	public IdempotencyOutboxHealthIndicator(OutboxBacklog backlog, Duration maxOldestAge, long maxBacklog,
			boolean deadRowsDown, Duration timeout) {
		this.maxOldestAge = maxOldestAge;
		this.maxBacklog = maxBacklog;
		this.deadRowsDown = deadRowsDown;
		this.timeout = timeout;
		this.snapshot = new BoundedCall<>("outbox", backlog::snapshot);
	}

	@Override
	public Health health() {
		OutboxBacklog.Snapshot snapshot;
		try {
			snapshot = this.snapshot.call(this.timeout);
		}
		catch (TimeoutException ex) {
			return Health.down()
				.withDetail("error", "The outbox table could not be read within " + this.timeout.toMillis() + " ms")
				.build();
		}
		catch (Exception ex) {
			Health.Builder builder = Health.down(ex);
			Throwable root = NestedExceptionUtils.getMostSpecificCause(ex);
			if (root != ex) {
				builder.withDetail("cause", BoundedCall.describe(root));
			}
			return builder.build();
		}
		List<String> reasons = new ArrayList<>();
		Duration oldest = snapshot.oldestPendingAge();
		if (oldest != null && oldest.compareTo(this.maxOldestAge) > 0) {
			reasons.add("oldest unsent row is older than " + this.maxOldestAge.toMillis() + " ms");
		}
		if (snapshot.pending() > this.maxBacklog) {
			reasons.add("more than " + this.maxBacklog + " rows are unsent");
		}
		if (this.deadRowsDown && snapshot.dead() > 0) {
			reasons.add("DEAD rows wait to be re-driven");
		}
		Health.Builder builder = reasons.isEmpty() ? Health.up() : Health.down();
		builder.withDetail("pending", snapshot.pending()).withDetail("deadRows", snapshot.dead());
		if (oldest != null) {
			builder.withDetail("oldestPendingAge", oldest.toMillis());
		}
		builder.withDetail("maxOldestAge", this.maxOldestAge.toMillis())
			.withDetail("maxBacklog", this.maxBacklog)
			.withDetail("deadRowsDown", this.deadRowsDown);
		if (!reasons.isEmpty()) {
			builder.withDetail("reasons", reasons);
		}
		return builder.build();
	}

}

package dev.idempotency.autoconfigure.health;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

import dev.idempotency.core.IdempotencyStore;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.core.NestedExceptionUtils;

/**
 * Health of one dedup store: its {@link IdempotencyStore#probe() probe} answers within a timeout
 * (the JDBC store queries its table, so the database answers and the schema is there; the Redis
 * store sends {@code PING}). UP with the store's name and the probe's response time in
 * milliseconds; DOWN with the exception's class and message (and its root cause's), or with the
 * timeout when the probe did not answer in time. Keys and their contents never appear.
 * <p>
 * The probe runs on a thread of its own: a hanging probe holds that thread, not the caller's, and
 * the next check waits for the same probe instead of starting another.
 *
 * @since 0.2.0
 */
public class IdempotencyStoreHealthIndicator implements HealthIndicator {

	private final IdempotencyStore store;

	private final Duration timeout;

	private final BoundedCall<Long> probe;

	/**
	 * Creates the indicator of one store.
	 * @param store the store to probe
	 * @param timeout how long to wait for the probe
	 */
	public IdempotencyStoreHealthIndicator(IdempotencyStore store, Duration timeout) {
		this.store = store;
		this.timeout = timeout;
		this.probe = new BoundedCall<>("store", () -> {
			long start = System.nanoTime();
			store.probe();
			return Duration.ofNanos(System.nanoTime() - start).toMillis();
		});
	}

	@Override
	public Health health() {
		Health.Builder builder = Health.unknown().withDetail("store", this.store.name());
		try {
			long responseTime = this.probe.call(this.timeout);
			return builder.up().withDetail("responseTime", responseTime).build();
		}
		catch (TimeoutException ex) {
			return builder.down()
				.withDetail("error", "The store's probe did not answer within " + this.timeout.toMillis() + " ms")
				.build();
		}
		catch (Exception ex) {
			builder.down(ex);
			Throwable root = NestedExceptionUtils.getMostSpecificCause(ex);
			if (root != ex) {
				builder.withDetail("cause", BoundedCall.describe(root));
			}
			return builder.build();
		}
	}

}

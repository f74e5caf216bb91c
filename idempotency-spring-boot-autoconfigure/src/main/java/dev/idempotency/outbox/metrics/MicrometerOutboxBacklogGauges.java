package dev.idempotency.outbox.metrics;

import java.time.Clock;
import java.time.Duration;

import dev.idempotency.outbox.OutboxBacklog;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Registers the outbox gauges {@value OutboxMeters#OUTBOX_BACKLOG},
 * {@value OutboxMeters#OUTBOX_DEAD_BACKLOG} and {@value OutboxMeters#OUTBOX_OLDEST_AGE}
 * (seconds). They read the outbox table when the registry samples them, at most once per
 * {@code minInterval} for the three of them; when the table cannot be read they report
 * {@code NaN}.
 *
 * @since 0.1.0
 */
public class MicrometerOutboxBacklogGauges {

	private static final Log logger = LogFactory.getLog(MicrometerOutboxBacklogGauges.class);

	private final OutboxBacklog backlog;

	private final Clock clock;

	private final long minIntervalMillis;

	private volatile OutboxBacklog.@Nullable Snapshot last;

	private volatile long lastReadAt;

	/**
	 * Creates and registers the gauges.
	 * @param registry where to register them
	 * @param backlog reads the outbox table
	 * @param minInterval how long one reading serves every gauge
	 * @param clock measures that interval
	 */
	public MicrometerOutboxBacklogGauges(MeterRegistry registry, OutboxBacklog backlog, Duration minInterval,
			Clock clock) {
		this.backlog = backlog;
		this.clock = clock;
		this.minIntervalMillis = minInterval.toMillis();
		Gauge.builder(OutboxMeters.OUTBOX_BACKLOG, this, (gauges) -> gauges.read(0))
			.description("Outbox rows committed and not yet sent")
			.register(registry);
		Gauge.builder(OutboxMeters.OUTBOX_DEAD_BACKLOG, this, (gauges) -> gauges.read(1))
			.description("Outbox rows marked dead, waiting to be re-driven")
			.register(registry);
		Gauge.builder(OutboxMeters.OUTBOX_OLDEST_AGE, this, (gauges) -> gauges.read(2))
			.description("Age of the oldest unsent outbox row")
			.baseUnit("seconds")
			.register(registry);
	}

	private double read(int which) {
		OutboxBacklog.Snapshot snapshot = snapshot();
		if (snapshot == null) {
			return Double.NaN;
		}
		return switch (which) {
			case 0 -> snapshot.pending();
			case 1 -> snapshot.dead();
			default -> (snapshot.oldestPendingAge() != null) ? snapshot.oldestPendingAge().toMillis() / 1000.0 : 0.0;
		};
	}

	private synchronized OutboxBacklog.@Nullable Snapshot snapshot() {
		long now = this.clock.millis();
		if (this.last == null || now - this.lastReadAt >= this.minIntervalMillis) {
			try {
				this.last = this.backlog.snapshot();
			}
			catch (RuntimeException ex) {
				logger.debug("Could not read the outbox backlog", ex);
				this.last = null;
			}
			this.lastReadAt = now;
		}
		return this.last;
	}

}

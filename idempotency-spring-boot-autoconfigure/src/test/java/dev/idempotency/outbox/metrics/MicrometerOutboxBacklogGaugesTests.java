package dev.idempotency.outbox.metrics;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.outbox.OutboxBacklog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MicrometerOutboxBacklogGauges}: one reading of the table serves the three gauges for the
 * minimum interval, and a table that cannot be read is {@code NaN}.
 */
class MicrometerOutboxBacklogGaugesTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final Clock clock = Clock.fixed(Instant.EPOCH, ZoneOffset.UTC);

	@Test
	void oneReadingServesEveryGaugeWithinTheInterval() {
		AtomicInteger reads = new AtomicInteger();
		new MicrometerOutboxBacklogGauges(this.registry, () -> {
			reads.incrementAndGet();
			return new OutboxBacklog.Snapshot(5, 2, Duration.ofMillis(1500));
		}, Duration.ofSeconds(1), this.clock);
		assertThat(gauge(OutboxMeters.OUTBOX_BACKLOG)).isEqualTo(5);
		assertThat(gauge(OutboxMeters.OUTBOX_DEAD_BACKLOG)).isEqualTo(2);
		assertThat(gauge(OutboxMeters.OUTBOX_OLDEST_AGE)).isEqualTo(1.5);
		assertThat(reads).hasValue(1);
	}

	@Test
	void anUnreadableTableIsNotANumber() {
		new MicrometerOutboxBacklogGauges(this.registry, () -> {
			throw new IllegalStateException("table gone");
		}, Duration.ofSeconds(1), this.clock);
		assertThat(gauge(OutboxMeters.OUTBOX_BACKLOG)).isNaN();
	}

	private double gauge(String name) {
		return this.registry.get(name).gauge().value();
	}

}

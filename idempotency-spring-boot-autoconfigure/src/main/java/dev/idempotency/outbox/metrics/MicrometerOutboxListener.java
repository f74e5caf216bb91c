package dev.idempotency.outbox.metrics;

import java.time.Duration;

import dev.idempotency.outbox.OutboxListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import org.springframework.core.NestedExceptionUtils;

/**
 * Records what the outbox relay did with each message as Micrometer meters:
 * <ul>
 * <li>{@value OutboxMeters#OUTBOX_PUBLISHED} (counter) and {@value OutboxMeters#OUTBOX_LATENCY}
 * (timer): destination;</li>
 * <li>{@value OutboxMeters#OUTBOX_FAILED} and {@value OutboxMeters#OUTBOX_DEAD} (counters):
 * destination, exception (the simple class name of the root cause).</li>
 * </ul>
 * The backlog gauges are {@link MicrometerOutboxBacklogGauges}.
 *
 * @since 0.2.0
 */
public class MicrometerOutboxListener implements OutboxListener {

	private final MeterProvider<Counter> outboxPublished;

	private final MeterProvider<Counter> outboxFailed;

	private final MeterProvider<Counter> outboxDead;

	private final MeterProvider<Timer> outboxLatency;

	/**
	 * Creates the listener.
	 * @param registry where the meters go
	 */
	public MicrometerOutboxListener(MeterRegistry registry) {
		this.outboxPublished = Counter.builder(OutboxMeters.OUTBOX_PUBLISHED)
			.description("Outbox messages acknowledged by the broker")
			.withRegistry(registry);
		this.outboxFailed = Counter.builder(OutboxMeters.OUTBOX_FAILED)
			.description("Failed outbox send attempts that will be retried")
			.withRegistry(registry);
		this.outboxDead = Counter.builder(OutboxMeters.OUTBOX_DEAD)
			.description("Outbox messages marked dead")
			.withRegistry(registry);
		this.outboxLatency = Timer.builder(OutboxMeters.OUTBOX_LATENCY)
			.description("Time from an outbox row's creation to the broker's acknowledgement")
			.withRegistry(registry);
	}

	@Override
	public void onOutboxSent(String destination, Duration latency) {
		this.outboxPublished.withTags(OutboxMeters.DESTINATION_TAG, destination).increment();
		this.outboxLatency.withTags(OutboxMeters.DESTINATION_TAG, destination).record(latency);
	}

	@Override
	public void onOutboxSendFailed(String destination, Throwable cause) {
		this.outboxFailed
			.withTags(OutboxMeters.DESTINATION_TAG, destination, OutboxMeters.EXCEPTION_TAG, rootCause(cause))
			.increment();
	}

	@Override
	public void onOutboxDead(String destination, String messageId, Throwable cause) {
		this.outboxDead
			.withTags(OutboxMeters.DESTINATION_TAG, destination, OutboxMeters.EXCEPTION_TAG, rootCause(cause))
			.increment();
	}

	private static String rootCause(Throwable cause) {
		return NestedExceptionUtils.getMostSpecificCause(cause).getClass().getSimpleName();
	}

}

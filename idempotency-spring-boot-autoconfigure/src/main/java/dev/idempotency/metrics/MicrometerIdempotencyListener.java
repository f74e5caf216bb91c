package dev.idempotency.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotency.core.DeliveryListener;
import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.IdempotencyReconciler;
import dev.idempotency.core.UnfinishedClaim;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;

/**
 * Records outcomes and purges as Micrometer meters:
 * <ul>
 * <li>{@value IdempotencyMeters#INVOCATIONS} (timer): namespace, outcome, store, exception;</li>
 * <li>{@value IdempotencyMeters#PURGE_DELETED} (counter): store;</li>
 * <li>{@value IdempotencyMeters#PURGE_RUNS} (counter): store;</li>
 * <li>{@value IdempotencyMeters#DEAD_LETTERED} (counter): source, destination, exception;</li>
 * <li>{@value IdempotencyMeters#RECONCILER_SCANNED}, {@value IdempotencyMeters#RECONCILER_VERDICTS}
 * (counters) and {@value IdempotencyMeters#RECONCILER_OLDEST_UNFINISHED} (time gauge): store, verdict;</li>
 * <li>{@value IdempotencyMeters#LISTENER_PAUSED} (gauge) and {@value IdempotencyMeters#LISTENER_PAUSES}
 * (counter): listener.</li>
 * </ul>
 * Summing the invocation timer's counts over outcomes gives every delivery:
 * received = processed + duplicate + failed + rejected (+ in_progress, which is retried).
 * <p>
 * A technology's own events have meters of their own: the Redis Stream adapter's consumer groups
 * ({@code redis.stream.metrics}), the outbox relay and backlog ({@code outbox.metrics}).
 *
 * @since 0.1.0
 */
public class MicrometerIdempotencyListener implements IdempotencyListener, DeliveryListener {

	private final MeterProvider<Timer> invocations;

	private final MeterProvider<Counter> purgeDeleted;

	private final MeterProvider<Counter> purgeRuns;

	private final MeterProvider<Counter> reconcilerScanned;

	private final MeterProvider<Counter> reconcilerVerdicts;

	private final MeterProvider<Counter> deadLettered;

	private final MeterProvider<Counter> listenerPauses;

	private final MeterRegistry registry;

	/** Values behind the gauges, by meter name and tags; gauges hold them weakly. */
	private final Map<String, AtomicLong> gaugeValues = new ConcurrentHashMap<>();

	// Every message records an outcome: looking its timer up by tags in the registry each time
	// (building Tags and a Meter.Id) costs more than the recording itself.
	private final Map<InvocationTags, Timer> invocationTimers = new ConcurrentHashMap<>();

	public MicrometerIdempotencyListener(MeterRegistry registry) {
		this.registry = registry;
		this.invocations = Timer.builder(IdempotencyMeters.INVOCATIONS)
			.description("@Idempotent invocations by outcome")
			.withRegistry(registry);
		this.purgeDeleted = Counter.builder(IdempotencyMeters.PURGE_DELETED)
			.description("Expired idempotency records deleted by the purge")
			.withRegistry(registry);
		this.purgeRuns = Counter.builder(IdempotencyMeters.PURGE_RUNS)
			.description("Purge runs of the idempotency store")
			.withRegistry(registry);
		this.reconcilerScanned = Counter.builder(IdempotencyMeters.RECONCILER_SCANNED)
			.description("Unfinished leased claims taken over by a reconciliation scan")
			.withRegistry(registry);
		this.reconcilerVerdicts = Counter.builder(IdempotencyMeters.RECONCILER_VERDICTS)
			.description("Unfinished leased claims settled by the reconciler, by verdict")
			.withRegistry(registry);
		this.deadLettered = Counter.builder(IdempotencyMeters.DEAD_LETTERED)
			.description("Messages published to a dead-letter destination")
			.withRegistry(registry);
		this.listenerPauses = Counter.builder(IdempotencyMeters.LISTENER_PAUSES)
			.description("Pauses of a listener because the infrastructure failed")
			.withRegistry(registry);
	}

	@Override
	public void onOutcome(IdempotencyEvent event) {
		Class<?> failure = (event.failure() != null) ? event.failure().getClass() : null;
		this.invocationTimers.computeIfAbsent(new InvocationTags(event.namespace(), event.outcome(), event.store(), failure),
				this::invocationTimer)
			.record(event.duration());
	}

	private Timer invocationTimer(InvocationTags tags) {
		String exception = (tags.failure() != null) ? tags.failure().getSimpleName() : "none";
		return this.invocations.withTags(IdempotencyMeters.NAMESPACE_TAG, tags.namespace(),
				IdempotencyMeters.OUTCOME_TAG, tags.outcome().tag(), IdempotencyMeters.STORE_TAG, tags.store(),
				IdempotencyMeters.EXCEPTION_TAG, exception);
	}

	@Override
	public void onPurged(String store, int deleted) {
		this.purgeRuns.withTags(IdempotencyMeters.STORE_TAG, store).increment();
		this.purgeDeleted.withTags(IdempotencyMeters.STORE_TAG, store).increment(deleted);
	}

	@Override
	public void onReconciled(String store, UnfinishedClaim claim, IdempotencyReconciler.@Nullable Verdict verdict,
			boolean settled) {
		String tag = (verdict != null && settled) ? verdict.name().toLowerCase(Locale.ROOT) : "failed";
		this.reconcilerVerdicts.withTags(IdempotencyMeters.STORE_TAG, store, IdempotencyMeters.VERDICT_TAG, tag)
			.increment();
	}

	@Override
	public void onReconciliationScan(String store, int taken, @Nullable Instant oldestUnfinished) {
		this.reconcilerScanned.withTags(IdempotencyMeters.STORE_TAG, store).increment(taken);
		this.gaugeValues.computeIfAbsent(IdempotencyMeters.RECONCILER_OLDEST_UNFINISHED + "|" + store, (key) -> {
			AtomicLong oldest = new AtomicLong();
			TimeGauge.builder(IdempotencyMeters.RECONCILER_OLDEST_UNFINISHED, oldest, TimeUnit.MILLISECONDS,
					(value) -> (value.get() == 0) ? 0 : Math.max(0, this.registry.config().clock().wallTime() - value.get()))
				.description("Age of the oldest leased claim whose lease ended without completion")
				.tags(Tags.of(IdempotencyMeters.STORE_TAG, store))
				.register(this.registry);
			return oldest;
		}).set((oldestUnfinished != null) ? oldestUnfinished.toEpochMilli() : 0);
	}

	@Override
	public void onDeadLettered(String source, String destination, Throwable cause) {
		this.deadLettered
			.withTags(IdempotencyMeters.SOURCE_TAG, source, IdempotencyMeters.DESTINATION_TAG, destination,
					IdempotencyMeters.EXCEPTION_TAG,
					NestedExceptionUtils.getMostSpecificCause(cause).getClass().getSimpleName())
			.increment();
	}

	@Override
	public void onListenerPaused(String listener, Throwable cause) {
		this.listenerPauses.withTags(Tags.of(IdempotencyMeters.LISTENER_TAG, listener)).increment();
		pausedGauge(listener).set(1);
	}

	@Override
	public void onListenerResumed(String listener, Duration paused) {
		pausedGauge(listener).set(0);
	}

	private AtomicLong pausedGauge(String listener) {
		return this.gaugeValues.computeIfAbsent(IdempotencyMeters.LISTENER_PAUSED + "|" + listener, (key) -> {
			AtomicLong value = new AtomicLong();
			Gauge.builder(IdempotencyMeters.LISTENER_PAUSED, value, AtomicLong::get)
				.description("1 while the listener is paused because the infrastructure failed")
				.tags(Tags.of(IdempotencyMeters.LISTENER_TAG, listener))
				.register(this.registry);
			return value;
		});
	}

	private record InvocationTags(String namespace, IdempotencyOutcome outcome, String store,
			@Nullable Class<?> failure) {
	}

}

package dev.idempotency.metrics;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.idempotency.core.IdempotencyEvent;
import dev.idempotency.core.IdempotencyInProgressException;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link MicrometerIdempotencyListener}.
 */
class MicrometerIdempotencyListenerTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final MicrometerIdempotencyListener listener = new MicrometerIdempotencyListener(this.registry);

	@Test
	void invocationsAreTimedPerNamespaceOutcomeAndStore() {
		this.listener.onOutcome(event("points", IdempotencyOutcome.PROCESSED, "jdbc", null));
		this.listener.onOutcome(event("points", IdempotencyOutcome.PROCESSED, "jdbc", null));
		this.listener.onOutcome(event("points", IdempotencyOutcome.DUPLICATE, "jdbc", null));
		this.listener.onOutcome(event("shipping", IdempotencyOutcome.PROCESSED, "jdbc", null));
		this.listener.onOutcome(event("points", IdempotencyOutcome.PROCESSED, "in_memory", null));
		assertThat(timer("points", "processed", "jdbc", "none").count()).isEqualTo(2);
		assertThat(timer("points", "duplicate", "jdbc", "none").count()).isEqualTo(1);
		assertThat(timer("shipping", "processed", "jdbc", "none").count()).isEqualTo(1);
		assertThat(timer("points", "processed", "in_memory", "none").count()).isEqualTo(1);
		assertThat(this.registry.find(IdempotencyMeters.INVOCATIONS).timers()).hasSize(4);
	}

	@Test
	void invocationTimerRecordsTheEventDuration() {
		this.listener.onOutcome(new IdempotencyEvent("points", "k", IdempotencyOutcome.PROCESSED, "jdbc",
				Duration.ofMillis(250), null));
		this.listener.onOutcome(new IdempotencyEvent("points", "k2", IdempotencyOutcome.PROCESSED, "jdbc",
				Duration.ofMillis(750), null));
		Timer timer = timer("points", "processed", "jdbc", "none");
		assertThat(timer.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(1000.0);
		assertThat(timer.max(TimeUnit.MILLISECONDS)).isEqualTo(750.0);
	}

	@Test
	void failuresAreTaggedWithTheExceptionSimpleClassName() {
		this.listener.onOutcome(event("points", IdempotencyOutcome.FAILED, "jdbc", new IllegalStateException("boom")));
		this.listener.onOutcome(event("points", IdempotencyOutcome.REJECTED, "jdbc",
				new InvalidIdempotencyKeyException("no key")));
		this.listener.onOutcome(event("points", IdempotencyOutcome.IN_PROGRESS, "jdbc",
				new IdempotencyInProgressException(new IdempotencyKey("points", "k"))));
		assertThat(timer("points", "failed", "jdbc", "IllegalStateException").count()).isEqualTo(1);
		assertThat(timer("points", "rejected", "jdbc", "InvalidIdempotencyKeyException").count()).isEqualTo(1);
		assertThat(timer("points", "in_progress", "jdbc", "IdempotencyInProgressException").count()).isEqualTo(1);
	}

	@Test
	void everyOutcomeIsTaggedWithItsLowerCaseName() {
		for (IdempotencyOutcome outcome : IdempotencyOutcome.values()) {
			this.listener.onOutcome(event("points", outcome, "redis", null));
		}
		assertThat(this.registry.find(IdempotencyMeters.INVOCATIONS).timers())
			.extracting((timer) -> timer.getId().getTag(IdempotencyMeters.OUTCOME_TAG))
			.containsExactlyInAnyOrder("processed", "duplicate", "failed", "in_progress", "rejected", "parked", "conflict");
	}

	@Test
	void invocationCountsOverOutcomesAddUpToEveryEvent() {
		IdempotencyOutcome[] outcomes = { IdempotencyOutcome.PROCESSED, IdempotencyOutcome.DUPLICATE,
				IdempotencyOutcome.DUPLICATE, IdempotencyOutcome.FAILED, IdempotencyOutcome.REJECTED,
				IdempotencyOutcome.PROCESSED, IdempotencyOutcome.IN_PROGRESS };
		for (IdempotencyOutcome outcome : outcomes) {
			this.listener.onOutcome(event("points", outcome, "jdbc",
					(outcome == IdempotencyOutcome.PROCESSED || outcome == IdempotencyOutcome.DUPLICATE) ? null
							: new RuntimeException()));
		}
		long total = this.registry.find(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, "points")
			.timers()
			.stream()
			.mapToLong(Timer::count)
			.sum();
		assertThat(total).isEqualTo(outcomes.length);
	}

	@Test
	void purgeCountsRunsAndDeletedRecordsPerStore() {
		this.listener.onPurged("jdbc", 5);
		this.listener.onPurged("jdbc", 0);
		this.listener.onPurged("jdbc", 3);
		this.listener.onPurged("redis", 2);
		assertThat(counter(IdempotencyMeters.PURGE_RUNS, "jdbc").count()).isEqualTo(3.0);
		assertThat(counter(IdempotencyMeters.PURGE_DELETED, "jdbc").count()).isEqualTo(8.0);
		assertThat(counter(IdempotencyMeters.PURGE_RUNS, "redis").count()).isEqualTo(1.0);
		assertThat(counter(IdempotencyMeters.PURGE_DELETED, "redis").count()).isEqualTo(2.0);
	}

	@Test
	void purgeThatDeletedNothingStillCountsARun() {
		this.listener.onPurged("jdbc", 0);
		assertThat(counter(IdempotencyMeters.PURGE_RUNS, "jdbc").count()).isEqualTo(1.0);
		assertThat(counter(IdempotencyMeters.PURGE_DELETED, "jdbc").count()).isZero();
	}

	@Test
	void noMetersAreRegisteredBeforeTheFirstEvent() {
		assertThat(this.registry.getMeters()).isEmpty();
	}

	private static IdempotencyEvent event(String namespace, IdempotencyOutcome outcome, String store,
			@Nullable Throwable failure) {
		return new IdempotencyEvent(namespace, "key", outcome, store, Duration.ofMillis(5), failure);
	}

	private Timer timer(String namespace, String outcome, String store, String exception) {
		return this.registry.get(IdempotencyMeters.INVOCATIONS)
			.tag(IdempotencyMeters.NAMESPACE_TAG, namespace)
			.tag(IdempotencyMeters.OUTCOME_TAG, outcome)
			.tag(IdempotencyMeters.STORE_TAG, store)
			.tag(IdempotencyMeters.EXCEPTION_TAG, exception)
			.timer();
	}

	private Counter counter(String name, String store) {
		return this.registry.get(name).tag(IdempotencyMeters.STORE_TAG, store).counter();
	}

}

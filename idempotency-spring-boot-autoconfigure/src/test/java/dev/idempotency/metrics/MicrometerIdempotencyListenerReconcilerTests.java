package dev.idempotency.metrics;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyReconciler.Verdict;
import dev.idempotency.core.UnfinishedClaim;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reconciler's meters recorded by {@link MicrometerIdempotencyListener}.
 */
class MicrometerIdempotencyListenerReconcilerTests {

	private final MockClock clock = new MockClock();

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, this.clock);

	private final MicrometerIdempotencyListener listener = new MicrometerIdempotencyListener(this.registry);

	private final UnfinishedClaim claim = new UnfinishedClaim(new IdempotencyKey("billing", "pay-1"), Instant.EPOCH, 1,
			"t");

	@Test
	void verdictsAreCountedByVerdictAndUnappliedOnesAsFailed() {
		this.listener.onReconciled("jdbc", this.claim, Verdict.COMPLETED, true);
		this.listener.onReconciled("jdbc", this.claim, Verdict.MANUAL, true);
		this.listener.onReconciled("jdbc", this.claim, Verdict.RETRY, false);
		this.listener.onReconciled("jdbc", this.claim, null, false);
		assertThat(verdicts("completed")).isEqualTo(1);
		assertThat(verdicts("manual")).isEqualTo(1);
		assertThat(verdicts("retry")).isZero();
		assertThat(verdicts("failed")).isEqualTo(2);
	}

	@Test
	void scansCountTakenClaimsAndTheGaugeAgesTheOldestUntilNoneIsLeft() {
		Instant oldest = Instant.ofEpochMilli(this.clock.wallTime()).minusSeconds(90);
		this.listener.onReconciliationScan("jdbc", 3, oldest);
		assertThat(this.registry.get(IdempotencyMeters.RECONCILER_SCANNED).counter().count()).isEqualTo(3);
		assertThat(oldestSeconds()).isEqualTo(90);
		this.clock.add(30, TimeUnit.SECONDS);
		assertThat(oldestSeconds()).as("ages between scans").isEqualTo(120);
		this.listener.onReconciliationScan("jdbc", 0, null);
		assertThat(oldestSeconds()).isZero();
	}

	private double verdicts(String verdict) {
		Counter counter = this.registry.find(IdempotencyMeters.RECONCILER_VERDICTS)
			.tags(IdempotencyMeters.STORE_TAG, "jdbc", IdempotencyMeters.VERDICT_TAG, verdict)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private double oldestSeconds() {
		return this.registry.get(IdempotencyMeters.RECONCILER_OLDEST_UNFINISHED).timeGauge().value(TimeUnit.SECONDS);
	}

}

package dev.idempotency.observation;

import java.lang.reflect.Method;
import java.util.List;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyOutcome;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DefaultIdempotencyObservationConvention}: the name, the span name, the
 * low-cardinality tags (one outcome per call, also for batches) and the key tag and its switch.
 */
class DefaultIdempotencyObservationConventionTests {

	private static final Method METHOD = DefaultIdempotencyObservationConventionTests.class.getDeclaredMethods()[0];

	private final DefaultIdempotencyObservationConvention convention = new DefaultIdempotencyObservationConvention();

	@Test
	void nameAndSpanName() {
		IdempotencyObservationContext context = context();
		assertThat(this.convention.getName()).isEqualTo("idempotency.invocation");
		assertThat(this.convention.getContextualName(context)).isEqualTo("points idempotent");
		assertThat(this.convention.supportsContext(context)).isTrue();
		assertThat(this.convention.supportsContext(new Observation.Context())).isFalse();
	}

	@Test
	void lowCardinalityTagsAreNamespaceOutcomeAndStore() {
		IdempotencyObservationContext context = context();
		context.setKeys(List.of(new IdempotencyKey("points", "order-1")));
		context.setOutcomes(List.of(IdempotencyOutcome.DUPLICATE));

		assertThat(this.convention.getLowCardinalityKeyValues(context)).containsExactlyInAnyOrder(
				KeyValue.of("idempotency.namespace", "points"), KeyValue.of("idempotency.outcome", "duplicate"),
				KeyValue.of("idempotency.store", "jdbc"));
	}

	@Test
	void keyIsAHighCardinalityTagUnlessSwitchedOff() {
		IdempotencyObservationContext context = context();
		context.setKeys(List.of(new IdempotencyKey("points", "order-1")));
		context.setOutcomes(List.of(IdempotencyOutcome.PROCESSED));

		assertThat(this.convention.getHighCardinalityKeyValues(context))
			.containsExactly(KeyValue.of("idempotency.key", "order-1"));
		assertThat(new DefaultIdempotencyObservationConvention(false).getHighCardinalityKeyValues(context)).isEmpty();
	}

	@Test
	void batchHasNoKeyTagAndOneOutcomeOrMixed() {
		IdempotencyObservationContext context = context();
		context.setKeys(List.of(new IdempotencyKey("points", "a"), new IdempotencyKey("points", "b")));
		context.setOutcomes(List.of(IdempotencyOutcome.PROCESSED, IdempotencyOutcome.PROCESSED));
		assertThat(this.convention.getHighCardinalityKeyValues(context)).isEmpty();
		assertThat(outcome(context)).isEqualTo("processed");

		context.setOutcomes(List.of(IdempotencyOutcome.PROCESSED, IdempotencyOutcome.DUPLICATE));
		assertThat(outcome(context)).isEqualTo("mixed");
	}

	@Test
	void callWithoutOutcomesIsUnknownUntilItFailed() {
		IdempotencyObservationContext context = context();
		assertThat(outcome(context)).as("while running").isEqualTo("unknown");
		context.setError(new IllegalStateException("store unreachable"));
		assertThat(outcome(context)).isEqualTo("failed");
	}

	private String outcome(IdempotencyObservationContext context) {
		return this.convention.getLowCardinalityKeyValues(context)
			.stream()
			.filter((keyValue) -> keyValue.getKey().equals("idempotency.outcome"))
			.findFirst()
			.orElseThrow()
			.getValue();
	}

	private static IdempotencyObservationContext context() {
		return new IdempotencyObservationContext("points", "jdbc", METHOD);
	}

}

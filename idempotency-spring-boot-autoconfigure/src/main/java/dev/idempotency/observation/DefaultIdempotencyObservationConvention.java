package dev.idempotency.observation;

import java.util.List;

import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.observation.IdempotencyObservationDocumentation.HighCardinalityKeyNames;
import dev.idempotency.observation.IdempotencyObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValues;

/**
 * The default {@link IdempotencyObservationConvention}: observations named
 * {@value #NAME}, spans named {@code <namespace> idempotent}, low-cardinality tags namespace,
 * outcome and store, and the key of a single message as a high-cardinality tag unless switched off.
 *
 * @since 0.2.0
 * @see IdempotencyObservationDocumentation
 */
public class DefaultIdempotencyObservationConvention implements IdempotencyObservationConvention {

	/** The name of the observation. */
	public static final String NAME = "idempotency.invocation";

	private final boolean keyTag;

	/** Creates a convention that tags spans with the key. */
	public DefaultIdempotencyObservationConvention() {
		this(true);
	}

	/**
	 * Creates a convention.
	 * @param keyTag whether the key of a single message becomes the high-cardinality tag
	 * {@code idempotency.key}; switch it off when keys carry data that must not reach the tracing
	 * backend
	 */
	public DefaultIdempotencyObservationConvention(boolean keyTag) {
		this.keyTag = keyTag;
	}

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(IdempotencyObservationContext context) {
		return context.getNamespace() + " idempotent";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(IdempotencyObservationContext context) {
		return KeyValues.of(LowCardinalityKeyNames.NAMESPACE.withValue(context.getNamespace()),
				LowCardinalityKeyNames.OUTCOME.withValue(outcome(context)),
				LowCardinalityKeyNames.STORE.withValue(context.getStore()));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(IdempotencyObservationContext context) {
		if (this.keyTag && context.getKeys().size() == 1) {
			return KeyValues.of(HighCardinalityKeyNames.KEY.withValue(context.getKeys().get(0).value()));
		}
		return KeyValues.empty();
	}

	/** One outcome for the call: the outcome all its keys share. */
	private static String outcome(IdempotencyObservationContext context) {
		List<IdempotencyOutcome> outcomes = context.getOutcomes();
		if (outcomes.isEmpty()) {
			return (context.getError() != null) ? IdempotencyOutcome.FAILED.tag() : "unknown";
		}
		IdempotencyOutcome first = outcomes.get(0);
		for (IdempotencyOutcome outcome : outcomes) {
			if (outcome != first) {
				return "mixed";
			}
		}
		return first.tag();
	}

}

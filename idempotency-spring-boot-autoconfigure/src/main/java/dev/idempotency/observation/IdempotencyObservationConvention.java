package dev.idempotency.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The name, contextual name and tags of {@code idempotency.invocation} observations. Declare a bean
 * of this type to replace {@link DefaultIdempotencyObservationConvention}.
 *
 * @since 0.2.0
 */
public interface IdempotencyObservationConvention extends ObservationConvention<IdempotencyObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof IdempotencyObservationContext;
	}

}

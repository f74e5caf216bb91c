package dev.idempotency.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of the starter and their tags.
 *
 * @since 0.2.0
 */
public enum IdempotencyObservationDocumentation implements ObservationDocumentation {

	/** One call of an {@code @Idempotent} method, from its interception to its outcome. */
	INVOCATION {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultIdempotencyObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return HighCardinalityKeyNames.values();
		}

	};

	/** Tags with few values: one time series each in metrics made from the observation. */
	public enum LowCardinalityKeyNames implements KeyName {

		/** The call's namespace. */
		NAMESPACE {
			@Override
			public String asString() {
				return "idempotency.namespace";
			}
		},

		/**
		 * How the call ended, as the {@code outcome} tag of the {@code idempotency.invocations}
		 * meter ({@code processed}, {@code duplicate}, ...); {@code mixed} for a batch whose
		 * messages ended differently, {@code unknown} when the call ended before it had an outcome
		 * without an exception.
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "idempotency.outcome";
			}
		},

		/** The name of the store the keys are claimed in. */
		STORE {
			@Override
			public String asString() {
				return "idempotency.store";
			}
		}

	}

	/** Tags with a value per call: on spans only. */
	public enum HighCardinalityKeyNames implements KeyName {

		/**
		 * The key of a single message ({@code idempotency.observation.key-tag}); not set for a
		 * batch, nor when no key could be resolved.
		 */
		KEY {
			@Override
			public String asString() {
				return "idempotency.key";
			}
		}

	}

}

package dev.idempotency.observation;

import java.lang.reflect.Method;
import java.util.List;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.core.InvocationObserver;
import dev.idempotency.core.ObservedInvocation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Observes each {@code @Idempotent} call as an {@code idempotency.invocation} observation of a
 * Micrometer {@link ObservationRegistry}. Started on the listener's thread, it is a child of the
 * observation current there, such as spring-kafka's listener observation. With a registry that has
 * no handlers, nothing is created.
 *
 * @since 0.2.0
 */
public class MicrometerInvocationObserver implements InvocationObserver {

	private final ObservationRegistry registry;

	private final @Nullable IdempotencyObservationConvention convention;

	private final IdempotencyObservationConvention defaultConvention;

	/**
	 * Creates an observer.
	 * @param registry the registry to observe in
	 * @param convention a convention that replaces the default one, or {@code null}
	 * @param defaultConvention the default convention
	 */
	public MicrometerInvocationObserver(ObservationRegistry registry,
			@Nullable IdempotencyObservationConvention convention,
			IdempotencyObservationConvention defaultConvention) {
		this.registry = registry;
		this.convention = convention;
		this.defaultConvention = defaultConvention;
	}

	@Override
	public ObservedInvocation start(String namespace, String store, Method method) {
		if (this.registry.isNoop()) {
			return ObservedInvocation.NONE;
		}
		IdempotencyObservationContext context = new IdempotencyObservationContext(namespace, store, method);
		Observation observation = IdempotencyObservationDocumentation.INVOCATION
			.observation(this.convention, this.defaultConvention, () -> context, this.registry)
			.start();
		return new Observed(observation, context);
	}

	/**
	 * One started observation. A stop while the scope is open waits for the scope to close, so that
	 * the observation is stopped after it stopped being current, as {@link Observation#observe}
	 * does.
	 */
	private static final class Observed implements ObservedInvocation {

		private final Observation observation;

		private final IdempotencyObservationContext context;

		private boolean inScope;

		private boolean stopping;

		private boolean stopped;

		Observed(Observation observation, IdempotencyObservationContext context) {
			this.observation = observation;
			this.context = context;
		}

		@Override
		public Scope openScope() {
			Observation.Scope scope = this.observation.openScope();
			this.inScope = true;
			return () -> {
				scope.close();
				this.inScope = false;
				if (this.stopping) {
					stopNow();
				}
			};
		}

		@Override
		public void stop(List<IdempotencyKey> keys, List<IdempotencyOutcome> outcomes, @Nullable Throwable failure) {
			if (this.stopping || this.stopped) {
				return;
			}
			this.stopping = true;
			this.context.setKeys(keys);
			this.context.setOutcomes(outcomes);
			if (failure != null) {
				this.observation.error(failure);
			}
			if (!this.inScope) {
				stopNow();
			}
		}

		private void stopNow() {
			if (!this.stopped) {
				this.stopped = true;
				this.observation.stop();
			}
		}

	}

}

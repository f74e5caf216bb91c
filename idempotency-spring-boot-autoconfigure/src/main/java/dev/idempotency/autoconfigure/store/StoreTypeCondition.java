package dev.idempotency.autoconfigure.store;

import dev.idempotency.autoconfigure.IdempotencyProperties.StoreType;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.BindResult;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code idempotency.store.type} selects a store type. The value is bound like the
 * property itself, so {@code in-memory}, {@code in_memory} and {@code IN_MEMORY} all work. Public for
 * the store technologies' auto-configurations, which choose by it.
 *
 * @since 0.2.0
 */
public abstract class StoreTypeCondition extends SpringBootCondition {

	private static final String PROPERTY = "idempotency.store.type";

	private final StoreType type;

	private final boolean matchIfMissing;

	StoreTypeCondition(StoreType type, boolean matchIfMissing) {
		this.type = type;
		this.matchIfMissing = matchIfMissing;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		BindResult<StoreType> bound = Binder.get(context.getEnvironment()).bind(PROPERTY, StoreType.class);
		if (!bound.isBound()) {
			return new ConditionOutcome(this.matchIfMissing, PROPERTY + " is not set");
		}
		return new ConditionOutcome(bound.get() == this.type, PROPERTY + " is " + bound.get());
	}

	/** The JDBC store: chosen, or detected when no type is set. */
	public static final class Jdbc extends StoreTypeCondition {

		Jdbc() {
			super(StoreType.JDBC, true);
		}

	}

	/** The Redis store, when chosen; its auto-configuration adds when it is detected. */
	public static final class Redis extends StoreTypeCondition {

		Redis() {
			super(StoreType.REDIS, false);
		}

	}

	/** No store type is set: the store is detected. */
	public static final class Unset extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			BindResult<StoreType> bound = Binder.get(context.getEnvironment()).bind(PROPERTY, StoreType.class);
			return new ConditionOutcome(!bound.isBound(),
					PROPERTY + (bound.isBound() ? " is " + bound.get() : " is not set"));
		}

	}

	/** The in-memory store: only when chosen. */
	static final class InMemory extends StoreTypeCondition {

		InMemory() {
			super(StoreType.IN_MEMORY, false);
		}

	}

}

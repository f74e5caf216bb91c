package dev.idempotency.support;

import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.core.ArgumentAcknowledgerResolver;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.InvocationObserver;
import dev.idempotency.core.KeyResolver;
import dev.idempotency.core.MessageAcknowledger;
import dev.idempotency.core.ObservedInvocation;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.Assert;
import org.springframework.util.StringValueResolver;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs an {@code @Idempotent} method at most once per key in effect: each call becomes an
 * {@link IdempotentInvocation} (with one key per message for a batch delivery) that resolves its
 * key, claims it in the method's store inside an {@link InvocationTransaction}, runs the method,
 * and after commit completes the claim and acknowledges the delivery. Created with
 * {@link #builder(IdempotencyDefaults, IdempotencyStoreResolver, IdempotencyTransactionManagerResolver)}.
 *
 * @since 0.1.0
 * @see IdempotentInvocation
 */
public class IdempotencyInterceptor implements MethodInterceptor {

	private final IdempotencyDefaults defaults;

	private final KeyResolver keyResolver;

	private final ClaimPath.Cache claimPaths;

	private final Supplier<List<IdempotencyListener>> listeners;

	private final IdempotentMethodCache methods;

	private final AcknowledgerLookup acknowledgers;

	private final Supplier<ClaimGuards> guards;

	private final KeyDetailsSupport keyDetails;

	private final Supplier<InvocationObserver> observer;

	private IdempotencyInterceptor(Builder builder) {
		this.defaults = builder.defaults;
		this.keyResolver = builder.keyResolver;
		this.claimPaths = new ClaimPath.Cache(builder.stores, builder.transactionManagers);
		this.listeners = builder.listeners;
		this.methods = new IdempotentMethodCache(builder.placeholders, this.defaults.fingerprint(), builder.transports);
		this.acknowledgers = new AcknowledgerLookup(builder.acknowledgerResolvers);
		this.guards = SingletonSupplier.of(builder.guards);
		this.keyDetails = new KeyDetailsSupport(
				(this.keyResolver instanceof SpelKeyResolver spel) ? spel : new SpelKeyResolver(),
				SingletonSupplier.ofNullable(builder.keyDetails));
		this.observer = SingletonSupplier.of(builder.observer);
	}

	/**
	 * Starts building an interceptor. Every other collaborator has a default: a
	 * {@link SpelKeyResolver}, no listeners, placeholders left as they are, no argument
	 * acknowledgers, no filters or lock, no fingerprints or results, no observation and no message
	 * transports (default namespaces then name the class and method).
	 * @param defaults retention, lease, transaction timeout and fingerprint for annotations that do
	 * not set them
	 * @param stores finds the store of a method
	 * @param transactionManagers the transaction manager of a store's methods, or {@code null} when
	 * there is none (only non-transactional stores then work)
	 * @return a builder
	 * @since 0.2.0
	 */
	public static Builder builder(IdempotencyDefaults defaults, IdempotencyStoreResolver stores,
			IdempotencyTransactionManagerResolver transactionManagers) {
		return new Builder(defaults, stores, transactionManagers);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation call) throws Throwable {
		long started = System.nanoTime();
		Object target = call.getThis();
		if (target == null) {
			throw new IllegalStateException("@Idempotent needs a target object; static methods are not supported");
		}
		IdempotentMethod method = this.methods.get(call.getMethod(), AopUtils.getTargetClass(target));
		DeliveryContext delivery = DeliveryContextHolder.current();
		ClaimPath path = this.claimPaths.of(method);
		MessageAcknowledger acknowledger = this.acknowledgers.find(delivery, call.getArguments());
		TransactionBatch batch = TransactionBatch.collecting();
		if (batch != null) {
			// Runs later in the batch's transaction, or again without a batch if the batch is refused.
			batch.collect(this, call, target, method, path, delivery, acknowledger != null,
					() -> new IdempotencyKey(method.namespaceFor(delivery), this.keyResolver
						.resolve(method.keyExpression(), call.getMethod(), call.getArguments(), target, delivery)));
			return method.skippedValue();
		}
		return run(new IdempotentInvocation(call, target, method, delivery, path, acknowledger, this.defaults,
				this.listeners, this.guards.get(), this.keyDetails, started, null));
	}

	/**
	 * Runs the calls a {@link TransactionBatch} collected, as one invocation with one key per call.
	 * @param batch the batch, closed, with at least one call
	 * @throws Throwable whatever failed, after everything was rolled back; no outcome is told then
	 */
	void runBatch(TransactionBatch batch) throws Throwable {
		long started = System.nanoTime();
		TransactionBatch.Call first = batch.calls().get(0);
		run(new IdempotentInvocation(first.invocation(), batch.target(), batch.method(), first.delivery(),
				batch.path(), null, this.defaults, this.listeners, this.guards.get(), this.keyDetails, started,
				batch.calls()));
	}

	private @Nullable Object run(IdempotentInvocation invocation) throws Throwable {
		ObservedInvocation observed = invocation.observe(this.observer.get());
		if (observed == ObservedInvocation.NONE) {
			return invocation.run(this.keyResolver, this.defaults.transactionTimeout());
		}
		Throwable failure = null;
		try (ObservedInvocation.Scope scope = observed.openScope()) {
			return invocation.run(this.keyResolver, this.defaults.transactionTimeout());
		}
		catch (Throwable ex) {
			failure = ex;
			throw ex;
		}
		finally {
			invocation.returned(failure);
		}
	}

	/**
	 * Builds an {@link IdempotencyInterceptor}. The collaborators given as suppliers are looked up
	 * lazily, at the first invocation that needs them, so that the interceptor can be created before
	 * the beans they come from.
	 *
	 * @since 0.2.0
	 */
	public static final class Builder {

		private final IdempotencyDefaults defaults;

		private final IdempotencyStoreResolver stores;

		private final IdempotencyTransactionManagerResolver transactionManagers;

		private KeyResolver keyResolver = new SpelKeyResolver();

		private Supplier<List<IdempotencyListener>> listeners = List::of;

		private StringValueResolver placeholders = (value) -> value;

		private Supplier<List<ArgumentAcknowledgerResolver>> acknowledgerResolvers = List::of;

		private Supplier<ClaimGuards> guards = ClaimGuards::none;

		private Supplier<@Nullable KeyDetailsCodec> keyDetails = () -> null;

		private Supplier<InvocationObserver> observer = () -> InvocationObserver.NONE;

		private Supplier<MessageTransports> transports = MessageTransports::none;

		private Builder(IdempotencyDefaults defaults, IdempotencyStoreResolver stores,
				IdempotencyTransactionManagerResolver transactionManagers) {
			Assert.notNull(defaults, "'defaults' must not be null");
			Assert.notNull(stores, "'stores' must not be null");
			Assert.notNull(transactionManagers, "'transactionManagers' must not be null");
			this.defaults = defaults;
			this.stores = stores;
			this.transactionManagers = transactionManagers;
		}

		/**
		 * Resolves keys with this resolver instead of a {@link SpelKeyResolver}.
		 * @param keyResolver the key resolver
		 * @return this builder
		 */
		public Builder keyResolver(KeyResolver keyResolver) {
			Assert.notNull(keyResolver, "'keyResolver' must not be null");
			this.keyResolver = keyResolver;
			return this;
		}

		/**
		 * Tells these listeners every outcome.
		 * @param listeners the listeners, looked up at the first invocation and then at each
		 * outcome (a supplier that caches its list looks them up once)
		 * @return this builder
		 */
		public Builder listeners(Supplier<List<IdempotencyListener>> listeners) {
			Assert.notNull(listeners, "'listeners' must not be null");
			this.listeners = listeners;
			return this;
		}

		/**
		 * Resolves {@code ${...}} in annotation attributes.
		 * @param placeholders the resolver, such as a bean factory's
		 * {@code resolveEmbeddedValue}
		 * @return this builder
		 */
		public Builder placeholders(StringValueResolver placeholders) {
			Assert.notNull(placeholders, "'placeholders' must not be null");
			this.placeholders = placeholders;
			return this;
		}

		/**
		 * Also acknowledges through handles found among the arguments (such as Kafka's
		 * {@code Acknowledgment}) when the delivery context has no acknowledger.
		 * @param acknowledgerResolvers find an acknowledgement handle among the arguments, looked
		 * up at the first invocation
		 * @return this builder
		 */
		public Builder acknowledgerResolvers(Supplier<List<ArgumentAcknowledgerResolver>> acknowledgerResolvers) {
			Assert.notNull(acknowledgerResolvers, "'acknowledgerResolvers' must not be null");
			this.acknowledgerResolvers = acknowledgerResolvers;
			return this;
		}

		/**
		 * Puts duplicate filters and a lock in front of the stores.
		 * @param guards the filters and lock, looked up at the first invocation
		 * @return this builder
		 */
		public Builder guards(Supplier<ClaimGuards> guards) {
			Assert.notNull(guards, "'guards' must not be null");
			this.guards = guards;
			return this;
		}

		/**
		 * Records payload fingerprints and results with keys.
		 * @param keyDetails fingerprints payloads and serializes results, looked up at the first
		 * invocation that needs it; supplies {@code null} without Jackson
		 * @return this builder
		 */
		public Builder keyDetails(Supplier<@Nullable KeyDetailsCodec> keyDetails) {
			Assert.notNull(keyDetails, "'keyDetails' must not be null");
			this.keyDetails = keyDetails;
			return this;
		}

		/**
		 * Observes each call, for tracing.
		 * @param observer the observer, looked up at the first invocation;
		 * {@link InvocationObserver#NONE} observes nothing
		 * @return this builder
		 */
		public Builder observer(Supplier<InvocationObserver> observer) {
			Assert.notNull(observer, "'observer' must not be null");
			this.observer = observer;
			return this;
		}

		/**
		 * Names default namespaces by the listener ids these transports' annotations give; without
		 * transports they name the class and method.
		 * @param transports the registered message transports, looked up at the first invocation
		 * @return this builder
		 */
		public Builder transports(Supplier<MessageTransports> transports) {
			Assert.notNull(transports, "'transports' must not be null");
			this.transports = transports;
			return this;
		}

		/**
		 * Builds the interceptor.
		 * @return the interceptor
		 */
		public IdempotencyInterceptor build() {
			return new IdempotencyInterceptor(this);
		}

	}

}

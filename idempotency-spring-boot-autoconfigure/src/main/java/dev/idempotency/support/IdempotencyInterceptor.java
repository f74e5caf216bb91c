package dev.idempotency.support;

import java.util.List;
import java.util.function.Supplier;

import dev.idempotency.core.ArgumentAcknowledgerResolver;
import dev.idempotency.core.DeliveryContext;
import dev.idempotency.core.DeliveryContextHolder;
import dev.idempotency.core.IdempotencyListener;
import dev.idempotency.core.InvocationObserver;
import dev.idempotency.core.KeyResolver;
import dev.idempotency.core.MessageAcknowledger;
import dev.idempotency.core.ObservedInvocation;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.StringValueResolver;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs an {@code @Idempotent} method at most once per key in effect: each call becomes an
 * {@link IdempotentInvocation} (a {@link BatchInvocation} for a batch delivery) that resolves its
 * key, claims it in the method's store inside an {@link InvocationTransaction}, runs the method,
 * and after commit completes the claim and acknowledges the delivery.
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

	/**
	 * Creates an interceptor; collaborators are looked up lazily, at the first invocation.
	 * @param defaults retention and lease for annotations that do not set them
	 * @param keyResolver resolves keys
	 * @param stores finds the store of a method
	 * @param transactionManagers the transaction manager of a store's methods, or {@code null} when
	 * there is none (only non-transactional stores then work)
	 * @param listeners told every outcome
	 * @param placeholders resolves {@code ${...}} in annotation attributes
	 */
	public IdempotencyInterceptor(IdempotencyDefaults defaults, KeyResolver keyResolver,
			IdempotencyStoreResolver stores, IdempotencyTransactionManagerResolver transactionManagers,
			Supplier<List<IdempotencyListener>> listeners, StringValueResolver placeholders) {
		this(defaults, keyResolver, stores, transactionManagers, listeners, placeholders, List::of);
	}

	/**
	 * Creates an interceptor that also acknowledges through handles found among the arguments.
	 * @param defaults retention and lease for annotations that do not set them
	 * @param keyResolver resolves keys
	 * @param stores finds the store of a method
	 * @param transactionManagers the transaction manager of a store's methods, or {@code null}
	 * @param listeners told every outcome
	 * @param placeholders resolves {@code ${...}} in annotation attributes
	 * @param acknowledgerResolvers find an acknowledgement handle among the arguments (such as Kafka's
	 * {@code Acknowledgment}) when the delivery context has no acknowledger
	 */
	public IdempotencyInterceptor(IdempotencyDefaults defaults, KeyResolver keyResolver,
			IdempotencyStoreResolver stores, IdempotencyTransactionManagerResolver transactionManagers,
			Supplier<List<IdempotencyListener>> listeners, StringValueResolver placeholders,
			Supplier<List<ArgumentAcknowledgerResolver>> acknowledgerResolvers) {
		this(defaults, keyResolver, stores, transactionManagers, listeners, placeholders, acknowledgerResolvers,
				ClaimGuards::none);
	}

	/**
	 * Creates an interceptor with duplicate filters and a lock in front of the stores.
	 * @param defaults retention and lease for annotations that do not set them
	 * @param keyResolver resolves keys
	 * @param stores finds the store of a method
	 * @param transactionManagers the transaction manager of a store's methods, or {@code null}
	 * @param listeners told every outcome
	 * @param placeholders resolves {@code ${...}} in annotation attributes
	 * @param acknowledgerResolvers find an acknowledgement handle among the arguments
	 * @param guards the filters and lock, looked up at the first invocation
	 * @since 0.2.0
	 */
	public IdempotencyInterceptor(IdempotencyDefaults defaults, KeyResolver keyResolver,
			IdempotencyStoreResolver stores, IdempotencyTransactionManagerResolver transactionManagers,
			Supplier<List<IdempotencyListener>> listeners, StringValueResolver placeholders,
			Supplier<List<ArgumentAcknowledgerResolver>> acknowledgerResolvers, Supplier<ClaimGuards> guards) {
		this(defaults, keyResolver, stores, transactionManagers, listeners, placeholders, acknowledgerResolvers, guards,
				() -> null);
	}

	/**
	 * Creates an interceptor that can also record payload fingerprints and results with keys.
	 * @param defaults retention, lease and fingerprint for annotations that do not set them
	 * @param keyResolver resolves keys
	 * @param stores finds the store of a method
	 * @param transactionManagers the transaction manager of a store's methods, or {@code null}
	 * @param listeners told every outcome
	 * @param placeholders resolves {@code ${...}} in annotation attributes
	 * @param acknowledgerResolvers find an acknowledgement handle among the arguments
	 * @param guards the filters and lock, looked up at the first invocation
	 * @param keyDetails fingerprints payloads and serializes results, looked up at the first
	 * invocation that needs it; supplies {@code null} without Jackson
	 * @since 0.2.0
	 */
	public IdempotencyInterceptor(IdempotencyDefaults defaults, KeyResolver keyResolver,
			IdempotencyStoreResolver stores, IdempotencyTransactionManagerResolver transactionManagers,
			Supplier<List<IdempotencyListener>> listeners, StringValueResolver placeholders,
			Supplier<List<ArgumentAcknowledgerResolver>> acknowledgerResolvers, Supplier<ClaimGuards> guards,
			Supplier<@Nullable KeyDetailsCodec> keyDetails) {
		this(defaults, keyResolver, stores, transactionManagers, listeners, placeholders, acknowledgerResolvers, guards,
				keyDetails, () -> InvocationObserver.NONE);
	}

	/**
	 * Creates an interceptor whose calls are observed, for tracing.
	 * @param defaults retention, lease and fingerprint for annotations that do not set them
	 * @param keyResolver resolves keys
	 * @param stores finds the store of a method
	 * @param transactionManagers the transaction manager of a store's methods, or {@code null}
	 * @param listeners told every outcome
	 * @param placeholders resolves {@code ${...}} in annotation attributes
	 * @param acknowledgerResolvers find an acknowledgement handle among the arguments
	 * @param guards the filters and lock, looked up at the first invocation
	 * @param keyDetails fingerprints payloads and serializes results, looked up at the first
	 * invocation that needs it; supplies {@code null} without Jackson
	 * @param observer observes each call, looked up at the first invocation;
	 * {@link InvocationObserver#NONE} observes nothing
	 * @since 0.2.0
	 */
	public IdempotencyInterceptor(IdempotencyDefaults defaults, KeyResolver keyResolver,
			IdempotencyStoreResolver stores, IdempotencyTransactionManagerResolver transactionManagers,
			Supplier<List<IdempotencyListener>> listeners, StringValueResolver placeholders,
			Supplier<List<ArgumentAcknowledgerResolver>> acknowledgerResolvers, Supplier<ClaimGuards> guards,
			Supplier<@Nullable KeyDetailsCodec> keyDetails, Supplier<InvocationObserver> observer) {
		this(defaults, keyResolver, stores, transactionManagers, listeners, placeholders, acknowledgerResolvers, guards,
				keyDetails, observer, MessageTransports::none);
	}

	/**
	 * Creates an interceptor whose default namespaces name listeners by the ids their transports'
	 * annotations give them. The other constructors know no transport: their default namespaces
	 * name the class and method.
	 * @param defaults retention, lease and fingerprint for annotations that do not set them
	 * @param keyResolver resolves keys
	 * @param stores finds the store of a method
	 * @param transactionManagers the transaction manager of a store's methods, or {@code null}
	 * @param listeners told every outcome
	 * @param placeholders resolves {@code ${...}} in annotation attributes
	 * @param acknowledgerResolvers find an acknowledgement handle among the arguments
	 * @param guards the filters and lock, looked up at the first invocation
	 * @param keyDetails fingerprints payloads and serializes results, looked up at the first
	 * invocation that needs it; supplies {@code null} without Jackson
	 * @param observer observes each call, looked up at the first invocation;
	 * {@link InvocationObserver#NONE} observes nothing
	 * @param transports the registered message transports, looked up at the first invocation
	 * @since 0.2.0
	 */
	public IdempotencyInterceptor(IdempotencyDefaults defaults, KeyResolver keyResolver,
			IdempotencyStoreResolver stores, IdempotencyTransactionManagerResolver transactionManagers,
			Supplier<List<IdempotencyListener>> listeners, StringValueResolver placeholders,
			Supplier<List<ArgumentAcknowledgerResolver>> acknowledgerResolvers, Supplier<ClaimGuards> guards,
			Supplier<@Nullable KeyDetailsCodec> keyDetails, Supplier<InvocationObserver> observer,
			Supplier<MessageTransports> transports) {
		this.defaults = defaults;
		this.keyResolver = keyResolver;
		this.claimPaths = new ClaimPath.Cache(stores, transactionManagers);
		this.listeners = listeners;
		this.methods = new IdempotentMethodCache(placeholders, defaults.fingerprint(), transports);
		this.acknowledgers = new AcknowledgerLookup(acknowledgerResolvers);
		this.guards = SingletonSupplier.of(guards);
		this.keyDetails = new KeyDetailsSupport(
				(keyResolver instanceof SpelKeyResolver spel) ? spel : new SpelKeyResolver(),
				SingletonSupplier.ofNullable(keyDetails));
		this.observer = SingletonSupplier.of(observer);
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
		IdempotentInvocation invocation = (delivery != null && delivery.isBatch())
				? new BatchInvocation(call, target, method, delivery, path, acknowledger, this.defaults,
						this.listeners, this.guards.get(), this.keyDetails, started)
				: new IdempotentInvocation(call, target, method, delivery, path, acknowledger, this.defaults,
						this.listeners, this.guards.get(), this.keyDetails, started);
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

}

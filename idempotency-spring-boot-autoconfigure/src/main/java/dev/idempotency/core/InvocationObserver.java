package dev.idempotency.core;

import java.lang.reflect.Method;

/**
 * Observes each call of an {@code @Idempotent} method, for tracing: started when the call is
 * intercepted, before its key is resolved, and stopped once its outcome is known. The interceptor
 * depends on this interface only, so that it needs no observation library on the class path.
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface InvocationObserver {

	/** Observes nothing; what the interceptor uses when no observer is configured. */
	InvocationObserver NONE = (namespace, store, method) -> ObservedInvocation.NONE;

	/**
	 * Starts observing one call, on the calling thread. Must be cheap when nothing records what it
	 * observes: return {@link ObservedInvocation#NONE} then.
	 * @param namespace the call's namespace
	 * @param store the name of the method's store
	 * @param method the annotated method
	 * @return the started observation, never {@code null}
	 */
	ObservedInvocation start(String namespace, String store, Method method);

}

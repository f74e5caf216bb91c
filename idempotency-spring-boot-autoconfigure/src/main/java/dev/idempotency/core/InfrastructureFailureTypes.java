package dev.idempotency.core;

import java.util.List;

/**
 * Exception types of one technology (a broker client, a Redis client) that mean the infrastructure
 * failed, not the message: the default {@link FailureClassifier} pauses the listener on them instead
 * of counting an attempt. A transport contributes them through its {@link MessageTransport}; a store
 * technology registers one of these as a bean in its auto-configuration, guarded by the
 * technology's {@code @ConditionalOnClass}, so that the classifier knows a client's types exactly
 * when the client is on the class path and no part of the starter names a class by a string.
 * <p>
 * Called once, when the classifier is created; implementations are stateless and thread-safe.
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface InfrastructureFailureTypes {

	/**
	 * The types; a failure is the infrastructure's when one of its causes is an instance of one of
	 * them (unless a cause is the message's, see {@link FailureClassifier}).
	 * @return the types, never {@code null}, possibly empty
	 */
	List<Class<? extends Throwable>> infrastructureFailureTypes();

}

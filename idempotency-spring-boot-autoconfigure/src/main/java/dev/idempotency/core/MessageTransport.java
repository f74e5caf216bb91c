package dev.idempotency.core;

import java.lang.annotation.Annotation;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * What the engine knows of one message transport (Kafka, Redis Streams): how its listener methods
 * are marked and named, and which of its exceptions are the infrastructure's. The engine only calls
 * it; it never names a transport's classes. Each transport's auto-configuration registers its
 * implementation as a bean, when the transport's library is on the class path.
 * <p>
 * Contract for every implementation:
 * <ul>
 * <li>Answers depend only on the arguments: implementations are stateless, thread-safe and cheap.
 * The engine asks at start-up (the methods verifier, the transports' own checks) and on a consumer
 * thread at the first invocation of each {@code @Idempotent} method, whose answers it keeps.</li>
 * <li>Nothing returns {@code null}; no method throws for an annotation of one of its own
 * {@link #listenerAnnotationTypes() types}.</li>
 * <li>New capabilities arrive as {@code default} methods.</li>
 * </ul>
 *
 * @since 0.2.0
 */
public interface MessageTransport extends InfrastructureFailureTypes {

	/**
	 * The transport's stable identifier, such as {@code kafka} or {@code redis-stream}: the value for
	 * its meters' tags and its log lines. Two registered transports with one name fail start-up.
	 * @return the name, lower case, never empty
	 */
	String name();

	/**
	 * The annotations that mark this transport's listeners. The engine looks for each on an
	 * {@code @Idempotent} method (through its type hierarchy and repeatable containers, meta-annotations
	 * included) and, when the method has none, on the class the method is invoked on (a class-level
	 * listener, such as a {@code @KafkaListener} class whose {@code @KafkaHandler} methods it calls).
	 * @return the annotation types, never empty
	 */
	List<Class<? extends Annotation>> listenerAnnotationTypes();

	/**
	 * The id a listener annotation gives its listener, as written: the engine resolves
	 * {@code ${...}} placeholders and trims it. A listener with an id has the default namespace
	 * {@code <delivery namespace>:<id>}; one without, {@code <delivery namespace>:SimpleClassName#method}.
	 * @param listener an annotation of one of {@link #listenerAnnotationTypes()}, merged (its
	 * meta-annotation aliases applied)
	 * @return the id, or {@code ""} when the annotation names none
	 */
	String listenerId(Annotation listener);

	/**
	 * Whether a listener annotation makes its method receive batches. A method that records key
	 * details (a fingerprint, {@code onDuplicate = RETURN_PREVIOUS}) and is a batch listener fails
	 * start-up. Asked only of annotations found on the method itself.
	 * @param listener an annotation of one of {@link #listenerAnnotationTypes()}, merged
	 * @param placeholders resolves {@code ${...}} in the annotation's strings; never returns
	 * {@code null}
	 * @return {@code true} if the annotation declares a batch listener; by default {@code false}
	 */
	default boolean isBatchListener(Annotation listener, UnaryOperator<String> placeholders) {
		return false;
	}

	/**
	 * The fingerprint expression of this transport's listeners whose {@code @Idempotent} sets none,
	 * used before {@code idempotency.fingerprint}: for a transport whose deliveries carry a payload
	 * that always identifies the request (an HTTP request's method, path and body), evaluated over the
	 * variables its delivery context binds. Asked once per method.
	 * @param listener an annotation of one of {@link #listenerAnnotationTypes()}, merged
	 * @return the expression, or {@code ""} for none; by default none
	 */
	default String defaultFingerprint(Annotation listener) {
		return "";
	}

	/**
	 * Whether a duplicate call of this transport's listeners is answered with the first call's stored
	 * result when its {@code @Idempotent} keeps the default {@code onDuplicate = ACKNOWLEDGE}, as
	 * {@code RETURN_PREVIOUS} does: for a request/response transport, whose duplicate request must get
	 * the first response. Asked once per method.
	 * @param listener an annotation of one of {@link #listenerAnnotationTypes()}, merged
	 * @return {@code true} to store and return results; by default {@code false}
	 */
	default boolean returnsPreviousResult(Annotation listener) {
		return false;
	}

	/**
	 * The exception types of this transport's client that mean the broker or the network failed
	 * (fail-closed pauses the listener on them instead of counting an attempt).
	 * @return the types, possibly empty; by default none
	 */
	@Override
	default List<Class<? extends Throwable>> infrastructureFailureTypes() {
		return List.of();
	}

}

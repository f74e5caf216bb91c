package dev.idempotency.core;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Manual handling of parked keys: the keys a reconciler could not decide
 * ({@link IdempotencyReconciler.Verdict#MANUAL}). A person checks the business state and then marks
 * the key completed (its deliveries stay skipped) or releases it (the next delivery runs the
 * method). Each method commits on its own.
 *
 * @since 0.2.0
 */
public interface ParkedKeys {

	/**
	 * Lists parked keys, oldest claim first.
	 * @param namespace only this namespace, as written or (for a long one, stored as its digest) as
	 * this method lists it; {@code null} for all
	 * @param limit the most keys to return
	 * @return the parked keys
	 */
	List<ParkedKey> parked(@Nullable String namespace, int limit);

	/**
	 * Marks a parked key completed: its deliveries are skipped as duplicates from now on.
	 * @param key the key (digested like a claim when it is long), or the key as {@link #parked}
	 * lists it
	 * @param retention how long the key is remembered
	 * @return {@code false} if the key is not parked
	 */
	boolean markCompleted(IdempotencyKey key, Duration retention);

	/**
	 * Releases a parked key: the next delivery of it runs the method.
	 * @param key the key (digested like a claim when it is long), or the key as {@link #parked}
	 * lists it
	 * @return {@code false} if the key is not parked
	 */
	boolean release(IdempotencyKey key);

}

package dev.idempotency.test;

import java.time.Duration;
import java.util.function.LongSupplier;

import dev.idempotency.core.IdempotencyOutcome;
import org.assertj.core.api.AbstractAssert;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * AssertJ assertions over the outcome counts an {@link IdempotencyTester} reads from the engine's
 * meters, since the test began:
 * <pre class="code">
 * assertThat(idempotency).processed(1).duplicates(1);            // as they are now
 * idempotency.await().processed(1).duplicates(1);                // waiting for each, up to 30 seconds
 * idempotency.await().namespace("points").processed(1).failed(0);
 * </pre>
 * Each count must equal the expected one exactly; an awaiting assertion passes as soon as it does.
 *
 * @since 0.2.0
 */
public class IdempotencyAssert extends AbstractAssert<IdempotencyAssert, IdempotencyTester> {

	private final @Nullable String namespace;

	private final Duration timeout;

	IdempotencyAssert(IdempotencyTester actual, @Nullable String namespace, Duration timeout) {
		super(actual, IdempotencyAssert.class);
		this.namespace = namespace;
		this.timeout = timeout;
	}

	/**
	 * Assertions over the counts as they are now.
	 * @param actual the tester
	 * @return the assertions
	 */
	public static IdempotencyAssert assertThat(IdempotencyTester actual) {
		return new IdempotencyAssert(actual, null, Duration.ZERO);
	}

	/**
	 * The same assertions, counting only the deliveries of one namespace.
	 * @param namespace the namespace ({@code @Idempotent(namespace)}, or the default one)
	 * @return the narrowed assertions
	 */
	public IdempotencyAssert namespace(String namespace) {
		return new IdempotencyAssert(this.actual, namespace, this.timeout);
	}

	/**
	 * Deliveries whose method ran and committed.
	 * @param expected the count
	 * @return this
	 */
	public IdempotencyAssert processed(long expected) {
		return outcome(IdempotencyOutcome.PROCESSED, expected);
	}

	/**
	 * Deliveries skipped because their key was processed before.
	 * @param expected the count
	 * @return this
	 */
	public IdempotencyAssert duplicates(long expected) {
		return outcome(IdempotencyOutcome.DUPLICATE, expected);
	}

	/**
	 * Deliveries whose method, claim or commit failed (each attempt counts).
	 * @param expected the count
	 * @return this
	 */
	public IdempotencyAssert failed(long expected) {
		return outcome(IdempotencyOutcome.FAILED, expected);
	}

	/**
	 * Deliveries whose key another worker held (leased mode).
	 * @param expected the count
	 * @return this
	 */
	public IdempotencyAssert inProgress(long expected) {
		return outcome(IdempotencyOutcome.IN_PROGRESS, expected);
	}

	/**
	 * Deliveries whose key could not be resolved.
	 * @param expected the count
	 * @return this
	 */
	public IdempotencyAssert rejected(long expected) {
		return outcome(IdempotencyOutcome.REJECTED, expected);
	}

	/**
	 * Deliveries refused because their payload differs from the one recorded with their key.
	 * @param expected the count
	 * @return this
	 */
	public IdempotencyAssert conflicts(long expected) {
		return outcome(IdempotencyOutcome.CONFLICT, expected);
	}

	/**
	 * Deliveries skipped because their key waits for manual handling.
	 * @param expected the count
	 * @return this
	 */
	public IdempotencyAssert parked(long expected) {
		return outcome(IdempotencyOutcome.PARKED, expected);
	}

	/**
	 * Deliveries with the given outcome.
	 * @param outcome the outcome
	 * @param expected the count
	 * @return this
	 */
	public IdempotencyAssert outcome(IdempotencyOutcome outcome, long expected) {
		return hasCount(outcome.tag(), () -> this.actual.count(outcome, this.namespace), expected);
	}

	/**
	 * Messages published to a dead-letter destination, in every namespace.
	 * @param expected the count
	 * @return this
	 */
	public IdempotencyAssert deadLettered(long expected) {
		return hasCount("dead-lettered", this.actual::deadLettered, expected);
	}

	/**
	 * Pauses of listeners by fail-closed (one per outage and listener), in every namespace.
	 * @param expected the count
	 * @return this
	 */
	public IdempotencyAssert listenerPauses(long expected) {
		return hasCount("listener pauses", this.actual::listenerPauses, expected);
	}

	private IdempotencyAssert hasCount(String what, LongSupplier count, long expected) {
		isNotNull();
		if (this.timeout.isZero() || this.timeout.isNegative()) {
			check(what, count.getAsLong(), expected);
			return this;
		}
		try {
			Awaitility.await()
				.atMost(this.timeout)
				.pollInterval(Duration.ofMillis(50))
				.until(() -> count.getAsLong() == expected);
		}
		catch (ConditionTimeoutException ex) {
			check(what, count.getAsLong(), expected);
		}
		return this;
	}

	private void check(String what, long count, long expected) {
		if (count != expected) {
			failWithMessage("Expected %s %s%s since the test began but counted %s (after waiting %s); "
					+ "deliveries by namespace and outcome: %s", expected, what,
					(this.namespace != null) ? " in namespace '" + this.namespace + "'" : "", count, this.timeout,
					this.actual.snapshot());
		}
	}

}

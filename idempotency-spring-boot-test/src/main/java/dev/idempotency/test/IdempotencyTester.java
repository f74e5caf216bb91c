package dev.idempotency.test;

import java.time.Duration;
import java.util.Map;

import dev.idempotency.core.IdempotencyOutcome;
import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.MeterRegistry;
import org.assertj.core.api.AssertProvider;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What a test of an {@code @Idempotent} listener does to it: deliver a message twice, lose the
 * acknowledgement after the commit, expire the leases in progress, cut the store off; and what it
 * reads back: the engine's outcome counts since the test began, from the {@code idempotency.invocations}
 * meter.
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;IdempotencyTest
 * class OrderListenerTests {
 *
 *     &#64;Autowired IdempotencyTester idempotency;
 *
 *     &#64;Test
 *     void duplicateIsSkipped() {
 *         idempotency.deliverTwice(() -&gt; kafka.send("orders", order));
 *         idempotency.await().processed(1).duplicates(1);
 *     }
 * }
 * </pre>
 * A bean of the test's application context, shared by its tests: the {@link IdempotencyExtension}
 * {@linkplain #reset() resets} it before each test.
 *
 * @since 0.2.0
 */
public class IdempotencyTester implements AssertProvider<IdempotencyAssert> {

	/** How long {@link #await()} waits for the counts, unless told otherwise. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

	private final OutcomeCounts counts;

	private final CrashAfterCommit crashes;

	private final StoreFaults store;

	IdempotencyTester(MeterRegistry registry, CrashAfterCommit crashes, StoreFaults store) {
		this.counts = new OutcomeCounts(registry);
		this.crashes = crashes;
		this.store = store;
		this.counts.reset();
	}

	/**
	 * Runs a delivery twice, one after the other: a producer's retry, a redelivery.
	 * @param delivery sends the message (through the broker) or calls the {@code @Idempotent} method
	 */
	public void deliverTwice(Runnable delivery) {
		deliver(2, delivery);
	}

	/**
	 * Runs a delivery {@code times} times, one after the other.
	 * @param times how many times, at least one
	 * @param delivery sends the message or calls the method
	 */
	public void deliver(int times, Runnable delivery) {
		Assert.isTrue(times > 0, "times must be positive");
		for (int i = 0; i < times; i++) {
			delivery.run();
		}
	}

	/**
	 * Makes the next {@code @Idempotent} delivery crash after its transaction committed and before the
	 * broker heard its acknowledgement (see {@link #crashAfterCommit(int)}).
	 */
	public void crashAfterCommit() {
		crashAfterCommit(1);
	}

	/**
	 * Makes the next {@code deliveries} {@code @Idempotent} deliveries that get past their commit crash
	 * before their acknowledgement, with a {@link SimulatedCrashException}: where the transport
	 * acknowledges through the engine (a Redis Stream's {@code XACK}) the acknowledgement throws
	 * instead of running; elsewhere the method's proxy throws once the engine returned (a Kafka
	 * container then does not commit the offset; a direct caller sees the exception). The broker
	 * delivers the message again, and the engine must find it a duplicate. Where marking and
	 * acknowledging are one step (the Redis store with a Redis Stream), the crash cannot fall between
	 * them: the proxy throws after that step, and nothing is redelivered.
	 * @param deliveries how many deliveries, at least one
	 */
	public void crashAfterCommit(int deliveries) {
		Assert.isTrue(deliveries > 0, "deliveries must be positive");
		this.crashes.arm(deliveries);
	}

	/**
	 * The application's stores, to cut off or to expire their leases.
	 * @return the store faults
	 */
	public StoreFaults store() {
		return this.store;
	}

	/**
	 * Ends the lease of every claim in progress; see {@link StoreFaults#expireLeases()}.
	 * @return how many leases ended
	 */
	public int expireLeases() {
		return this.store.expireLeases();
	}

	/**
	 * Assertions over the counts that wait, up to {@link #DEFAULT_TIMEOUT}, for each to be reached.
	 * @return the assertions
	 */
	public IdempotencyAssert await() {
		return await(DEFAULT_TIMEOUT);
	}

	/**
	 * Assertions over the counts that wait, up to {@code timeout}, for each to be reached.
	 * @param timeout how long each assertion waits
	 * @return the assertions
	 */
	public IdempotencyAssert await(Duration timeout) {
		return new IdempotencyAssert(this, null, timeout);
	}

	/**
	 * Assertions over the counts as they are now, for AssertJ's
	 * {@code assertThat(idempotency).processed(1).duplicates(1)}.
	 * @return the assertions
	 */
	@Override
	public IdempotencyAssert assertThat() {
		return IdempotencyAssert.assertThat(this);
	}

	/**
	 * How many deliveries ended with {@code outcome} since the test began, in every namespace.
	 * @param outcome the outcome
	 * @return the count
	 */
	public long count(IdempotencyOutcome outcome) {
		return this.counts.invocations(outcome, null);
	}

	/**
	 * How many deliveries in {@code namespace} ended with {@code outcome} since the test began.
	 * @param outcome the outcome
	 * @param namespace the namespace, or {@code null} for all
	 * @return the count
	 */
	public long count(IdempotencyOutcome outcome, @Nullable String namespace) {
		return this.counts.invocations(outcome, namespace);
	}

	/**
	 * How many messages the transports published to a dead-letter destination since the test began.
	 * @return the count of {@code idempotency.dead.lettered}
	 */
	public long deadLettered() {
		return this.counts.counter(IdempotencyMeters.DEAD_LETTERED);
	}

	/**
	 * How many times fail-closed paused a listener since the test began.
	 * @return the count of {@code idempotency.listener.pauses}
	 */
	public long listenerPauses() {
		return this.counts.counter(IdempotencyMeters.LISTENER_PAUSES);
	}

	/**
	 * Starts the counts again from zero, ends the store's outage, forgets its leases and disarms the
	 * crashes. The {@link IdempotencyExtension} calls it before each test.
	 */
	public void reset() {
		this.crashes.disarm();
		this.store.reset();
		this.counts.reset();
	}

	/** The counts of every namespace and outcome, for failure messages. */
	Map<String, Map<String, Long>> snapshot() {
		return this.counts.byNamespace();
	}

	@Override
	public String toString() {
		return "IdempotencyTester" + snapshot();
	}

}

package dev.idempotency.redis.stream;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import dev.idempotency.support.FailClosedCircuit;
import dev.idempotency.support.FailClosedCircuits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Fail-closed for one listener container: its {@link FailClosedCircuit}, named
 * {@code <stream>/<group>}, shared by its consumers and its recovery task. An infrastructure
 * failure of a delivery opens the circuit and the consumer {@linkplain #holdUntilRecovered holds}
 * the entry: it waits, probing the stores and the stream's Redis (PING), and then retries the entry
 * in place, without reading it again, so that Redis' delivery counter does not grow. While it waits
 * it keeps its own pending entries fresh (XCLAIM ... JUSTID, which resets their idle time without
 * counting a delivery) so that no other instance's recovery claims them. A read error does the same
 * without an entry in hand.
 * <p>
 * Without circuits ({@code idempotency.fail-closed.enabled=false}) every method answers as if no failure were the infrastructure's, and nothing waits.
 */
final class StreamFailClosed {

	// The container's category, as the other parts of the container.
	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	/** Most pending entries of one consumer kept fresh per step of a wait. */
	static final int REFRESHED_ENTRIES = 1000;

	/**
	 * Resets the idle time of a consumer's pending entries without counting a delivery (JUSTID).
	 * KEYS: stream. ARGV: group, consumer, most entries. Returns how many were refreshed.
	 */
	static final RedisScript<Long> REFRESH_OWN_PENDING = RedisScript.of("""
			local pending = redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', tonumber(ARGV[3]), ARGV[2])
			if #pending == 0 then return 0 end
			local ids = {}
			for i, entry in ipairs(pending) do ids[i] = entry[1] end
			redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, unpack(ids), 'JUSTID')
			return #ids
			""", Long.class);

	private final @Nullable FailClosedCircuits circuits;

	private final @Nullable FailClosedCircuit circuit;

	private final StringRedisTemplate redis;

	private final StreamBinding binding;

	private final BooleanSupplier running;

	/** Deliveries held in place right now: a read that recovers does not close their circuit. */
	private final AtomicInteger held = new AtomicInteger();

	/**
	 * Creates the fail-closed state of one container.
	 * @param circuits the application's circuits, or {@code null} when fail-closed is off
	 * @param redis the Redis of the stream
	 * @param binding the stream and group; the circuit is named {@code <stream>/<group>}
	 * @param running whether the container runs; a wait ends when it stops
	 */
	StreamFailClosed(@Nullable FailClosedCircuits circuits, StringRedisTemplate redis, StreamBinding binding,
			BooleanSupplier running) {
		this.circuits = circuits;
		this.circuit = (circuits != null) ? circuits.circuit(circuitName(binding)) : null;
		this.redis = redis;
		this.binding = binding;
		this.running = running;
	}

	/**
	 * The circuit's (and so the listener's, in logs and meters) name.
	 * @param binding the stream and group
	 * @return {@code <stream>/<group>}
	 */
	static String circuitName(StreamBinding binding) {
		return binding.stream() + "/" + binding.group();
	}

	/**
	 * Whether the listener is paused: its recovery claims nothing meanwhile.
	 * @return {@code true} while the circuit is open
	 */
	boolean isOpen() {
		return this.circuit != null && this.circuit.isOpen();
	}

	/**
	 * Whether a failed delivery is the infrastructure's, so that it is held instead of counted.
	 * @param failure what the delivery failed with
	 * @return {@code true} to {@linkplain #holdUntilRecovered hold} the entry
	 */
	boolean pausesOn(Throwable failure) {
		return this.circuits != null && this.circuits.isInfrastructure(failure);
	}

	/** Records that a delivery got through (it succeeded, or failed because of the message). */
	void delivered() {
		if (this.circuit != null) {
			this.circuit.close();
		}
	}

	/**
	 * Pauses the listener after an infrastructure failure of a delivery and waits, as long as the
	 * container runs, until the stores and the stream's Redis answer.
	 * @param consumer the consumer holding the entry
	 * @param failure the infrastructure failure
	 * @return {@code true} to retry the entry now, {@code false} if the container stopped (the entry
	 * stays pending)
	 */
	boolean holdUntilRecovered(String consumer, Throwable failure) {
		FailClosedCircuit circuit = requireCircuit();
		this.held.incrementAndGet();
		try {
			circuit.open(failure);
			return awaitRecovery(circuit, consumer);
		}
		finally {
			this.held.decrementAndGet();
		}
	}

	/**
	 * Pauses the listener after a read failed on the infrastructure, waits until it answers, and
	 * resumes it unless a delivery is still held (that delivery resumes it when it gets through).
	 * @param consumer the consumer whose read failed
	 * @param failure the read's failure
	 */
	void readFailed(String consumer, Throwable failure) {
		FailClosedCircuit circuit = requireCircuit();
		circuit.open(failure);
		if (awaitRecovery(circuit, consumer) && this.held.get() == 0) {
			circuit.close();
		}
	}

	private boolean awaitRecovery(FailClosedCircuit circuit, String consumer) {
		// No give-up after max-wait: a stream consumer has no poll deadline, so it waits as long as
		// the container runs.
		while (this.running.getAsBoolean()) {
			if (circuit.awaitRecovery(this.running, () -> refreshOwnPending(consumer))) {
				RuntimeException streamDown = pingStream();
				if (streamDown == null) {
					return true;
				}
				// Also when another thread closed the circuit meanwhile: Redis is down again.
				circuit.open(streamDown);
			}
		}
		return false;
	}

	private @Nullable RuntimeException pingStream() {
		try {
			this.redis.execute((RedisCallback<String>) RedisConnection::ping);
			return null;
		}
		catch (RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("The Redis of stream '" + this.binding.stream() + "' does not answer PING yet", ex);
			}
			return ex;
		}
	}

	/**
	 * Resets the idle time of a consumer's pending entries, so that no recovery (of another
	 * instance) claims them while the consumer holds them. Runs before each probe of a wait.
	 * @param consumer the consumer
	 * @return how many entries were refreshed
	 * @throws RuntimeException if Redis fails
	 */
	long refreshOwnPending(String consumer) {
		Long refreshed = this.redis.execute(REFRESH_OWN_PENDING, List.of(this.binding.stream()), this.binding.group(),
				consumer, String.valueOf(REFRESHED_ENTRIES));
		return (refreshed != null) ? refreshed : 0;
	}

	private FailClosedCircuit requireCircuit() {
		if (this.circuit == null) {
			throw new IllegalStateException("Fail-closed is disabled");
		}
		return this.circuit;
	}

}

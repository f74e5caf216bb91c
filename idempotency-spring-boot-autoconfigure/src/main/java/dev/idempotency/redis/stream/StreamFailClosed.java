package dev.idempotency.redis.stream;

import java.util.ArrayList;
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
 * in place, without reading it again, so that Redis' delivery counter does not grow. A read error
 * does the same without an entry in hand.
 * <p>
 * Before each probe, and once more when Redis and the stores answer again (the circuit still open),
 * the pending entries of all the container's consumers are kept fresh (XCLAIM ... JUSTID, which resets
 * their idle time without counting a delivery): the entries held, and those read in the same batch
 * behind them, are then not idle for min-idle when the circuit closes, so that neither this
 * container's recovery (which claims nothing while the circuit is open) nor another instance's claims
 * them. While Redis itself is down they cannot be refreshed; the refresh after the recovery covers
 * this container, not other instances.
 * <p>
 * Without circuits ({@code idempotency.fail-closed.enabled=false}) every method answers as if no
 * failure were the infrastructure's, and nothing waits.
 */
final class StreamFailClosed {

	// The container's category, as the other parts of the container.
	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	/** Most pending entries of one consumer kept fresh per step of a wait. */
	static final int REFRESHED_ENTRIES = 1000;

	/**
	 * Resets the idle time of consumers' pending entries, each keeping its own, without counting a
	 * delivery (JUSTID). KEYS: stream. ARGV: group, most entries per consumer, the consumers. Returns
	 * how many were refreshed.
	 */
	static final RedisScript<Long> REFRESH_PENDING = RedisScript.of("""
			local refreshed = 0
			for c = 3, #ARGV do
			  local pending = redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', tonumber(ARGV[2]), ARGV[c])
			  if #pending > 0 then
			    -- unpack() only expands in last position: the ids go into one argument list.
			    local claim = {'XCLAIM', KEYS[1], ARGV[1], ARGV[c], 0}
			    for _, entry in ipairs(pending) do claim[#claim + 1] = entry[1] end
			    claim[#claim + 1] = 'JUSTID'
			    redis.call(unpack(claim))
			    refreshed = refreshed + #pending
			  end
			end
			return refreshed
			""", Long.class);

	/**
	 * Sets back by one the delivery counter of a consumer's pending entries after an id (JUSTID keeps
	 * it from counting again). KEYS: stream. ARGV: group, consumer, the id (exclusive). Returns how
	 * many were set back.
	 */
	static final RedisScript<Long> FORGIVE_LOST_READ = RedisScript.of("""
			local pending = redis.call('XPENDING', KEYS[1], ARGV[1], '(' .. ARGV[3], '+', 1000, ARGV[2])
			for _, entry in ipairs(pending) do
			  redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, entry[1], 'RETRYCOUNT', math.max(0, entry[4] - 1), 'JUSTID')
			end
			return #pending
			""", Long.class);

	private final @Nullable FailClosedCircuits circuits;

	private final @Nullable FailClosedCircuit circuit;

	private final StringRedisTemplate redis;

	private final StreamBinding binding;

	/** The script's arguments: group, most entries, the container's consumers. */
	private final Object[] refreshArguments;

	private final BooleanSupplier running;

	/** Deliveries held in place right now: a read that recovers does not close their circuit. */
	private final AtomicInteger held = new AtomicInteger();

	/**
	 * Creates the fail-closed state of one container.
	 * @param circuits the application's circuits, or {@code null} when fail-closed is off
	 * @param redis the Redis of the stream
	 * @param binding the stream and group; the circuit is named {@code <stream>/<group>}
	 * @param consumers the container's consumers, whose pending entries are kept fresh
	 * @param running whether the container runs; a wait ends when it stops
	 */
	StreamFailClosed(@Nullable FailClosedCircuits circuits, StringRedisTemplate redis, StreamBinding binding,
			List<String> consumers, BooleanSupplier running) {
		this.circuits = circuits;
		this.circuit = (circuits != null) ? circuits.circuit(circuitName(binding)) : null;
		this.redis = redis;
		this.binding = binding;
		List<String> arguments = new ArrayList<>(List.of(binding.group(), String.valueOf(REFRESHED_ENTRIES)));
		arguments.addAll(consumers);
		this.refreshArguments = arguments.toArray();
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

	/**
	 * Records that a delivery got through (it succeeded, or failed because of the message).
	 * @param attemptStartedAt {@link System#nanoTime()} when the attempt started: one that started
	 * before the listener paused does not resume it
	 */
	void delivered(long attemptStartedAt) {
		if (this.circuit != null) {
			this.circuit.close(attemptStartedAt);
		}
	}

	/**
	 * Pauses the listener after an infrastructure failure of a delivery and waits, as long as the
	 * container runs, until the stores and the stream's Redis answer.
	 * @param failure the infrastructure failure
	 * @return {@code true} to retry the entry now, {@code false} if the container stopped or the
	 * thread was interrupted (the entry stays pending)
	 */
	boolean holdUntilRecovered(Throwable failure) {
		FailClosedCircuit circuit = requireCircuit();
		this.held.incrementAndGet();
		try {
			circuit.open(failure);
			return awaitRecovery(circuit);
		}
		finally {
			this.held.decrementAndGet();
		}
	}

	/**
	 * Pauses the listener after a read failed on the infrastructure, waits until it answers, and
	 * resumes it unless a delivery is still held (that delivery resumes it when it gets through).
	 * A read cut off by the outage may have run in Redis and lost its reply: the entries it took
	 * are pending in the consumer, one delivery counted, but never reached the listener. Their
	 * counter is set back by one (the entries after the last one the consumer delivered) and the
	 * recovery claims them after min-idle.
	 * @param consumer the consumer whose read failed
	 * @param lastDelivered the id of the last entry the consumer's subscription delivered
	 * @param failure the read's failure
	 */
	void readFailed(String consumer, String lastDelivered, Throwable failure) {
		FailClosedCircuit circuit = requireCircuit();
		circuit.open(failure);
		if (!awaitRecovery(circuit)) {
			return;
		}
		try {
			this.redis.execute(FORGIVE_LOST_READ, List.of(this.binding.stream()), this.binding.group(), consumer,
					lastDelivered);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not set back the delivery counters of a read cut off by the outage", ex);
		}
		if (this.held.get() == 0) {
			circuit.close();
		}
	}

	private boolean awaitRecovery(FailClosedCircuit circuit) {
		// No give-up after max-wait: a stream consumer has no poll deadline, so it waits as long as
		// the container runs. An interrupted thread stops waiting (its sleeps would not wait).
		while (this.running.getAsBoolean() && !Thread.currentThread().isInterrupted()) {
			if (circuit.awaitRecovery(this.running, this::refreshPending)) {
				RuntimeException streamDown = pingStreamAndRefresh();
				if (streamDown == null) {
					return true;
				}
				// Also when another thread closed the circuit meanwhile: Redis is down again.
				circuit.open(streamDown);
			}
		}
		return false;
	}

	private @Nullable RuntimeException pingStreamAndRefresh() {
		try {
			this.redis.execute((RedisCallback<String>) RedisConnection::ping);
		}
		catch (RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("The Redis of stream '" + this.binding.stream() + "' does not answer PING yet", ex);
			}
			return ex;
		}
		try {
			// While the circuit is still open: Redis may have been down for longer than min-idle.
			refreshPending();
		}
		catch (RuntimeException ex) {
			// For example NOGROUP after a restart that lost the group: the next read recreates it.
			logger.debug("Could not refresh the pending entries of stream '" + this.binding.stream() + "'", ex);
		}
		return null;
	}

	/**
	 * Resets the idle time of the pending entries of the container's consumers, so that no recovery
	 * claims them while the consumers hold them.
	 * @return how many entries were refreshed
	 * @throws RuntimeException if Redis fails
	 */
	long refreshPending() {
		Long refreshed = this.redis.execute(REFRESH_PENDING, List.of(this.binding.stream()), this.refreshArguments);
		return (refreshed != null) ? refreshed : 0;
	}

	private FailClosedCircuit requireCircuit() {
		if (this.circuit == null) {
			throw new IllegalStateException("Fail-closed is disabled");
		}
		return this.circuit;
	}

}

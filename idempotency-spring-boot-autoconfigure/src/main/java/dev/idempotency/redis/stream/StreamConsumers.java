package dev.idempotency.redis.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The consumers of one listener container and the health of their subscriptions: runs each
 * consumer's {@link StreamReadLoop} (new entries go to the {@link StreamEntryDispatcher}), handles
 * read errors without ever cancelling (pause, recreate a missing group; with fail-closed on, a read
 * that failed on the infrastructure pauses the listener until Redis and the stores answer),
 * subscribes again when a subscription ended, and tells the listeners how many subscriptions read without error whenever that number changes.
 * <p>
 * A subscription reads (counts as active) from a read that Redis answered until its next failed
 * read: not while it is new, nor while it reconnects or waits for Redis with the listener paused
 * after that failure, however long that takes. A consumer holding a delivery in a paused listener
 * has read, and counts until a read fails.
 * <p>
 * The container calls {@link #subscribe} and {@link #resubscribeEnded} under its lifecycle lock.
 */
final class StreamConsumers {

	// The container's category, as before the split: logging configuration keeps working.
	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	private final StreamBinding binding;

	private final RedisStreamSettings settings;

	private final ConsumerGroups groups;

	private final RedisConnectionFactory connectionFactory;

	private final Executor tasks;

	private final StreamEntryDispatcher dispatcher;

	private final StreamFailClosed failClosed;

	private final InFlightEntries inFlight;

	private final BooleanSupplier running;

	private final List<Member> members;

	private int lastReportedActive = -1;

	/**
	 * Creates the consumers of one container.
	 * @param names the consumer names, one per consumer
	 * @param binding the stream and group
	 * @param settings poll timeout and recovery back-off
	 * @param groups recreates the group when a read finds it missing
	 * @param connectionFactory gives each consumer's read loop its connection
	 * @param tasks runs the read loops, one thread each
	 * @param dispatcher delivers the entries read
	 * @param failClosed pauses the listener while reads fail on the infrastructure
	 * @param inFlight keeps the entries of each read fresh while they are delivered
	 * @param running whether the container runs; errors while it does not are ignored
	 */
	StreamConsumers(List<String> names, StreamBinding binding, RedisStreamSettings settings, ConsumerGroups groups,
			RedisConnectionFactory connectionFactory, Executor tasks, StreamEntryDispatcher dispatcher,
			StreamFailClosed failClosed, InFlightEntries inFlight, BooleanSupplier running) {
		this.binding = binding;
		this.settings = settings;
		this.groups = groups;
		this.connectionFactory = connectionFactory;
		this.tasks = tasks;
		this.dispatcher = dispatcher;
		this.failClosed = failClosed;
		this.inFlight = inFlight;
		this.running = running;
		List<Member> members = new ArrayList<>(names.size());
		for (String name : names) {
			members.add(new Member(name));
		}
		this.members = List.copyOf(members);
	}

	/**
	 * Consumer names for a listener: {@code base} for one consumer, else {@code base-0},
	 * {@code base-1}, ...
	 * @param base the listener's consumer name
	 * @param concurrency how many consumers
	 * @return the names
	 */
	static List<String> names(String base, int concurrency) {
		List<String> names = new ArrayList<>(concurrency);
		for (int i = 0; i < concurrency; i++) {
			names.add((concurrency == 1) ? base : base + "-" + i);
		}
		return names;
	}

	List<Member> members() {
		return this.members;
	}

	List<String> names() {
		return this.members.stream().map(Member::name).toList();
	}

	/**
	 * The consumer that claims idle entries for the whole container.
	 * @return the first consumer's name
	 */
	String claimer() {
		return this.members.get(0).name;
	}

	/**
	 * How many subscriptions are reading: Redis answered their last read and no error came since.
	 * @return the number of healthy subscriptions; 0 when the container does not run
	 */
	int active() {
		boolean running = this.running.getAsBoolean();
		int active = 0;
		for (Member member : this.members) {
			StreamReadLoop subscription = member.subscription;
			if (running && subscription != null && subscription.isActive() && member.reading) {
				active++;
			}
		}
		return active;
	}

	boolean anyFailing() {
		return this.members.stream().anyMatch((member) -> member.failing);
	}

	/**
	 * Whether every consumer has read its own pending entries since it started; until then a claim
	 * would take the same entries and deliver them twice.
	 * @return {@code true} once all have
	 */
	boolean allReadOwnPending() {
		return this.members.stream().allMatch((member) -> member.ownPendingRead);
	}

	/**
	 * Starts one consumer's read loop on new entries ({@code >}) with manual acknowledgement.
	 * @param member the consumer
	 */
	void subscribe(Member member) {
		StreamReadLoop loop = new StreamReadLoop(this.connectionFactory, this.binding, member.name, this.settings,
				this.dispatcher, this.inFlight, () -> onRead(member),
				(record) -> member.lastDelivered = record.getId().getValue(), (ex) -> onReadError(member, ex),
				this.running);
		// Not reading before its first read is answered.
		member.reading = false;
		member.registeredAt = System.nanoTime();
		member.subscription = loop;
		this.tasks.execute(loop);
	}

	/** Ends every read loop after its current read. */
	void cancel() {
		for (Member member : this.members) {
			StreamReadLoop loop = member.subscription;
			if (loop != null) {
				loop.cancel();
			}
		}
	}

	/**
	 * Subscribes again the consumers whose subscription ended (and was not just started).
	 */
	void resubscribeEnded() {
		long quiet = this.settings.pollTimeout().plus(this.settings.recoveryBackOff()).multipliedBy(2).toNanos();
		for (Member member : this.members) {
			StreamReadLoop subscription = member.subscription;
			if (this.running.getAsBoolean() && subscription != null && !subscription.isActive()
					&& System.nanoTime() - member.registeredAt > quiet) {
				logger.warn("Subscription of consumer '" + member.name + "' to stream '" + this.binding.stream()
						+ "' ended; subscribing again");
				subscribe(member);
			}
		}
	}

	/** Forgets every subscription and error, after the container stopped. */
	void reset() {
		for (Member member : this.members) {
			member.subscription = null;
			member.reading = false;
			member.failing = false;
			member.ownPendingRead = false;
		}
	}

	/**
	 * Tells the listeners the number of healthy subscriptions if it changed since the last report (or
	 * always, when the container does not run).
	 */
	void report() {
		while (true) {
			int active;
			synchronized (this.members) {
				active = active();
				if (active == this.lastReportedActive && this.running.getAsBoolean()) {
					return;
				}
				this.lastReportedActive = active;
			}
			// Told outside the lock (the listeners are the application's beans).
			this.binding.notifyStreamListeners(
					(listener) -> listener.onStreamSubscriptions(this.binding.stream(), this.binding.group(), active));
			synchronized (this.members) {
				if (active() == active) {
					return;
				}
				// Changed meanwhile, or another thread's report overtook this one: the listeners would
				// keep a stale count until the next change; tell them the current one.
				this.lastReportedActive = -1;
			}
		}
	}

	/** A read of the member's subscription was answered: it reads (again). */
	private void onRead(Member member) {
		if (member.reading) {
			return;
		}
		member.reading = true;
		if (member.failing) {
			member.failing = false;
			logger.info("Consumer '" + member.name + "' reads stream '" + this.binding.stream() + "' again");
		}
		report();
	}

	private void onReadError(Member member, Throwable ex) {
		if (!this.running.getAsBoolean()) {
			return;
		}
		String stream = this.binding.stream();
		String group = this.binding.group();
		boolean first = !member.failing;
		boolean wasReading = member.reading;
		member.failing = true;
		member.reading = false;
		if (wasReading) {
			report();
		}
		if (ConsumerGroups.isDeletedStream(ex)) {
			// Someone deleted the stream (an application cleaning up at shutdown, an operator): one
			// line, no stack trace; the next read finds the group missing and recreates it.
			logger.warn("Stream '" + stream + "' was deleted while consumer '" + member.name + "' of group '" + group
					+ "' waited for entries; reading it again");
		}
		else if (ConsumerGroups.isMissingGroup(ex)) {
			logger.warn("Consumer group '" + group + "' of stream '" + stream
					+ "' is missing (NOGROUP), probably after a Redis restart or failover; recreating it");
			try {
				this.groups.recreate();
			}
			catch (RuntimeException recreation) {
				logger.warn("Could not recreate consumer group '" + group + "' of stream '" + stream + "'", recreation);
			}
		}
		else if (this.failClosed.pausesOn(ex)) {
			// The circuit logs the pause once and probes at its own interval: no back-off here.
			logger.debug("Reading stream '" + stream + "' as consumer '" + member.name + "' failed", ex);
			this.failClosed.readFailed(member.name, member.lastDelivered, ex);
			return;
		}
		else if (first) {
			logger.warn("Reading stream '" + stream + "' as consumer '" + member.name + "' of group '" + group
					+ "' failed; retrying every " + this.settings.recoveryBackOff() + " until it succeeds", ex);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Reading stream '" + stream + "' failed again", ex);
		}
		try {
			Thread.sleep(Math.max(1, this.settings.recoveryBackOff().toMillis()));
		}
		catch (InterruptedException interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/** One consumer of the group and its subscription. */
	static final class Member {

		private final String name;

		private volatile @Nullable StreamReadLoop subscription;

		/** Whether Redis answered a read of the current subscription, with no error since. */
		private volatile boolean reading;

		/** Whether a read failed since the last one Redis answered: the next answer is logged. */
		private volatile boolean failing;

		private volatile long registeredAt;

		/** The last entry the subscription delivered: later pending entries were read, not delivered. */
		private volatile String lastDelivered = "0-0";

		/** Whether the consumer has read its own pending entries since it started. */
		private volatile boolean ownPendingRead;

		Member(String name) {
			this.name = name;
		}

		String name() {
			return this.name;
		}

		/** Records that the consumer has read its own pending entries (or given up trying). */
		void ownPendingRead() {
			this.ownPendingRead = true;
		}

	}

}

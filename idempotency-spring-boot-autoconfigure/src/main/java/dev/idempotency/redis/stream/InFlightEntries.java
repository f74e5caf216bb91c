package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.stream.Record;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The entries that a container's consumers hold in flight, kept fresh so that no recovery claims
 * them: a read's entries while they are delivered one after another (the one in the listener, those
 * waiting behind it, and those done whose XACK is not sent yet), and the pending entry a recovery
 * delivers. An entry held longer than min-idle would otherwise be claimed by another consumer
 * (XAUTOCLAIM), delivered again, and counted: with a low max-deliveries, dead-lettered although its
 * holder was about to commit it.
 * <p>
 * {@link #refresh()} runs every {@link #period} on a thread of its own. For the holders whose entries
 * were read or refreshed more than a period ago, it resets their idle time in one script, for all of
 * them at once: per holder, {@code XPENDING} of its consumer over the range it holds, then
 * {@code XCLAIM <stream> <group> <consumer> 0 <ids> JUSTID}, which resets the idle time without counting
 * a delivery (Redis 7.0 semantics). Only entries still pending in the holder's consumer are touched: an
 * entry acknowledged meanwhile, or claimed by another consumer, is left alone. A read delivered within
 * a period costs nothing; a slow one, one round trip per period for the whole container.
 * <p>
 * A holder stops holding when its read is done, its loop ends (the container stopped) or its process
 * dies: its entries then grow idle again and are claimed after min-idle, as before.
 */
final class InFlightEntries {

	// The container's category, as the other parts of the container.
	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	/**
	 * Resets the idle time of the entries each holder still has pending, each entry keeping its owner
	 * and delivery counter. KEYS: stream. ARGV: group, then per holder its consumer, first id, last id
	 * and the most entries in that range. Returns how many were refreshed.
	 */
	static final RedisScript<Long> REFRESH = RedisScript.of("""
			local refreshed = 0
			for h = 2, #ARGV, 4 do
			  local pending = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[h + 1], ARGV[h + 2],
			    tonumber(ARGV[h + 3]), ARGV[h])
			  -- In chunks: unpack() has a limit on the values it expands.
			  for first = 1, #pending, 500 do
			    local claim = {'XCLAIM', KEYS[1], ARGV[1], ARGV[h], 0}
			    for i = first, math.min(first + 499, #pending) do claim[#claim + 1] = pending[i][1] end
			    claim[#claim + 1] = 'JUSTID'
			    redis.call(unpack(claim))
			  end
			  refreshed = refreshed + #pending
			end
			return refreshed
			""", Long.class);

	private final StringRedisTemplate redis;

	private final StreamBinding binding;

	private final long periodNanos;

	private final Duration period;

	private final Set<Holder> holders = ConcurrentHashMap.newKeySet();

	private final AtomicLong refreshed = new AtomicLong();

	/**
	 * Creates the in-flight entries of one container.
	 * @param redis the Redis of the stream
	 * @param binding the stream and group
	 * @param minIdle after how long a pending entry may be claimed
	 */
	InFlightEntries(StringRedisTemplate redis, StreamBinding binding, Duration minIdle) {
		this.redis = redis;
		this.binding = binding;
		this.period = period(minIdle);
		this.periodNanos = this.period.toNanos();
	}

	/**
	 * How often held entries are refreshed, and how long they may go without: a quarter of min-idle, so
	 * that an entry is idle for at most about half of min-idle (a period of waiting for the next run,
	 * a period until the run that finds it due) and a slow Redis or a pause leaves a margin.
	 * @param minIdle after how long a pending entry may be claimed
	 * @return the period, at least a millisecond
	 */
	static Duration period(Duration minIdle) {
		Duration quarter = minIdle.dividedBy(4);
		return (quarter.compareTo(Duration.ofMillis(1)) < 0) ? Duration.ofMillis(1) : quarter;
	}

	Duration period() {
		return this.period;
	}

	/**
	 * Registers a holder of entries; {@link Holder#close() close} it when it holds nothing any more.
	 * @param consumer the consumer its entries are pending in
	 * @return the holder, holding nothing yet
	 */
	Holder holder(String consumer) {
		Holder holder = new Holder(consumer);
		this.holders.add(holder);
		return holder;
	}

	/**
	 * Resets the idle time of the entries held longer than a period since they were read or last
	 * refreshed, in one script for all holders; nothing when there are none. Never throws: a failed
	 * refresh is tried again at the next run (while Redis is down nothing can claim them either).
	 */
	void refresh() {
		try {
			refreshDue();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not keep the in-flight entries of stream '" + this.binding.stream() + "' fresh", ex);
		}
	}

	private void refreshDue() {
		long now = System.nanoTime();
		List<Object> arguments = null;
		List<Holder> due = null;
		List<Held> dueHeld = null;
		for (Holder holder : this.holders) {
			Held held = holder.held.get();
			if (held == null || now - held.freshSince() < this.periodNanos) {
				continue;
			}
			List<? extends Record<?, ?>> entries = held.entries();
			int from = holder.from;
			if (from >= entries.size()) {
				continue;
			}
			if (arguments == null) {
				arguments = new ArrayList<>();
				arguments.add(this.binding.group());
				due = new ArrayList<>();
				dueHeld = new ArrayList<>();
			}
			arguments.add(holder.consumer);
			arguments.add(entries.get(from).getId().getValue());
			arguments.add(entries.get(entries.size() - 1).getId().getValue());
			arguments.add(String.valueOf(entries.size() - from));
			due.add(holder);
			dueHeld.add(held);
		}
		if (arguments == null) {
			return;
		}
		// Fresh from before the script ran: the idle time counts from when Redis ran it, a bit later.
		long sentAt = System.nanoTime();
		Long count = this.redis.execute(REFRESH, List.of(this.binding.stream()), arguments.toArray());
		for (int i = 0; i < due.size(); i++) {
			Held held = dueHeld.get(i);
			// Unless the holder moved on meanwhile: its new entries are as fresh as their read.
			due.get(i).held.compareAndSet(held, new Held(held.entries(), sentAt));
		}
		this.refreshed.addAndGet((count != null) ? count : 0);
		if (logger.isTraceEnabled()) {
			logger.trace("Kept " + count + " in-flight entries of stream '" + this.binding.stream() + "' fresh");
		}
	}

	/**
	 * How many entries {@link #refresh()} has refreshed since the container was created (the same entry
	 * once per refresh).
	 * @return the count
	 */
	long refreshed() {
		return this.refreshed.get();
	}

	/**
	 * The entries one thread holds, pending in one consumer: those of its current read from the first
	 * that is not yet acknowledged, or the one pending entry it delivers. Written by that thread, read
	 * by the refreshing one; a refresh that sees a stale state refreshes an entry too many once (an
	 * entry that failed just now gets its retry a period later), never one too few.
	 */
	final class Holder implements AutoCloseable {

		private final String consumer;

		private final AtomicReference<@Nullable Held> held = new AtomicReference<>();

		/** Entries before this index are acknowledged, or failed and wait for their retry. */
		private volatile int from;

		private Holder(String consumer) {
			this.consumer = consumer;
		}

		/**
		 * Holds the entries just read (or claimed), in stream order; they are fresh now.
		 * @param entries the entries, pending in this holder's consumer
		 */
		void hold(List<? extends Record<?, ?>> entries) {
			this.from = 0;
			this.held.set(entries.isEmpty() ? null : new Held(entries, System.nanoTime()));
		}

		/**
		 * Stops holding the entries before {@code index}: each is acknowledged, or failed and waits
		 * pending for its retry after min-idle, which a refresh must not put off.
		 * @param index the first entry still held
		 */
		void settledBefore(int index) {
			if (index != this.from) {
				this.from = index;
			}
		}

		/** Holds nothing: the read is done, or abandoned (its entries are claimed after min-idle). */
		void release() {
			this.held.set(null);
		}

		@Override
		public void close() {
			release();
			InFlightEntries.this.holders.remove(this);
		}

	}

	/**
	 * The entries of a holder and when they were last fresh.
	 *
	 * @param entries the entries, in stream order
	 * @param freshSince {@link System#nanoTime()} of their read or last refresh
	 */
	private record Held(List<? extends Record<?, ?>> entries, long freshSince) {

	}

}

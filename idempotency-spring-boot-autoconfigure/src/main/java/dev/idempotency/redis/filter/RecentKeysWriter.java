package dev.idempotency.redis.filter;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.SetCondition;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.types.Expiration;

/**
 * Writes the keys of {@link RedisRecentKeysFilter} behind the consumer threads: a learned key joins
 * a bounded queue, and one daemon thread sends what has gathered as one pipeline of {@code SET key 1
 * PX ttl}. A consumer thread then never waits for Redis after its commit. The keys are advisory, so
 * a key that does not fit in the queue, or whose write fails, is dropped: its duplicate goes to the
 * store, which only costs speed. Drops are counted and logged at most once a minute.
 * <p>
 * {@link #stop()} sends what is queued and ends the thread; a key written after it (a late commit
 * while the application shuts down) is sent at once, on the caller's thread, and a failure counts as
 * a drop. {@link #start()} starts a thread again.
 */
final class RecentKeysWriter implements AutoCloseable {

	/** Keys waiting at most; a burst beyond it is dropped rather than slowing the consumers. */
	static final int CAPACITY = 10_000;

	/** Keys sent in one pipeline at most. */
	static final int PIPELINE = 500;

	private static final Log logger = LogFactory.getLog(RecentKeysWriter.class);

	private static final byte[] VALUE = "1".getBytes(StandardCharsets.UTF_8);

	private static final long DROP_LOG_INTERVAL = TimeUnit.MINUTES.toNanos(1);

	private final StringRedisTemplate redis;

	private final Expiration timeToLive;

	private final BlockingQueue<String> pending = new ArrayBlockingQueue<>(CAPACITY);

	private final AtomicLong dropped = new AtomicLong();

	private volatile @Nullable Thread thread;

	private volatile boolean stopped = true;

	/** Guards start and stop; not the writer itself, whose monitor the sending thread takes to log. */
	private final Object lifecycleMonitor = new Object();

	private long lastDropLog = System.nanoTime() - DROP_LOG_INTERVAL;

	RecentKeysWriter(StringRedisTemplate redis, Duration timeToLive) {
		this.redis = redis;
		this.timeToLive = Expiration.from(timeToLive);
		start();
	}

	/** Starts the thread that sends the queued keys, unless it runs. */
	void start() {
		synchronized (this.lifecycleMonitor) {
			if (!this.stopped) {
				return;
			}
			Thread sender = new Thread(this::run, "idempotency-recent-keys");
			sender.setDaemon(true);
			this.thread = sender;
			this.stopped = false;
			sender.start();
		}
	}

	/**
	 * Whether the thread sends the keys.
	 * @return {@code false} after {@link #stop()} until {@link #start()}
	 */
	boolean isRunning() {
		return !this.stopped;
	}

	/**
	 * Queues a Redis key to be written; drops it when the queue is full. Once stopped, sends it at
	 * once on the caller's thread.
	 */
	void write(String redisKey) {
		if (this.stopped) {
			send(List.of(redisKey));
			return;
		}
		if (!this.pending.offer(redisKey)) {
			this.dropped.incrementAndGet();
			return;
		}
		if (this.stopped) {
			// Stopped while offering: stop() may have drained the queue already, so send it here.
			sendQueued();
		}
	}

	/** Keys dropped so far: queue full, or a write that failed. */
	long dropped() {
		return this.dropped.get();
	}

	/** Keys queued and not yet sent. */
	int pending() {
		return this.pending.size();
	}

	private void run() {
		Thread self = Thread.currentThread();
		List<String> batch = new ArrayList<>(PIPELINE);
		// Ends when stopped and the queue is empty, or when a restart replaced it by another thread.
		while (this.thread == self || (this.stopped && !this.pending.isEmpty())) {
			try {
				String first = this.pending.poll(100, TimeUnit.MILLISECONDS);
				if (first == null) {
					continue;
				}
				batch.add(first);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			this.pending.drainTo(batch, PIPELINE - 1);
			send(batch);
			batch.clear();
		}
	}

	private void send(List<String> keys) {
		try {
			this.redis.executePipelined((RedisCallback<Object>) (connection) -> {
				for (String key : keys) {
					connection.stringCommands()
						.set(key.getBytes(StandardCharsets.UTF_8), VALUE, SetCondition.upsert(), this.timeToLive);
				}
				return null;
			});
		}
		catch (RuntimeException ex) {
			this.dropped.addAndGet(keys.size());
			logDrops(ex);
		}
	}

	private synchronized void logDrops(RuntimeException ex) {
		long now = System.nanoTime();
		if (now - this.lastDropLog >= DROP_LOG_INTERVAL) {
			this.lastDropLog = now;
			logger.warn("Could not write recently completed keys to Redis (" + this.dropped.get()
					+ " dropped so far); their duplicates go to the store: " + ex);
		}
	}

	/**
	 * Lets the thread send what is queued and end, then sends what a last {@link #write} may have
	 * queued meanwhile. Not interrupted: an interrupt would cut a pipeline on its way. Returns when
	 * the queue is empty, or after ten seconds of a thread that does not end (a Redis that hangs).
	 */
	void stop() {
		synchronized (this.lifecycleMonitor) {
			this.stopped = true;
			Thread sender = this.thread;
			this.thread = null;
			if (sender != null) {
				try {
					sender.join(TimeUnit.SECONDS.toMillis(10));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				if (sender.isAlive()) {
					logger.warn("The thread writing recently completed keys to Redis did not end within 10 s; "
							+ "sending the " + this.pending.size() + " keys still queued from the stopping thread");
				}
			}
			sendQueued();
		}
	}

	/** Same as {@link #stop()}. */
	@Override
	public void close() {
		stop();
	}

	private void sendQueued() {
		List<String> rest = new ArrayList<>();
		this.pending.drainTo(rest);
		for (int from = 0; from < rest.size(); from += PIPELINE) {
			send(rest.subList(from, Math.min(rest.size(), from + PIPELINE)));
		}
	}

}

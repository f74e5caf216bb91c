package dev.idempotency.kafka.share;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Renews the acquisition lock of the record a share consumer's method is working on, every
 * interval while the method runs ({@code AcknowledgeType.RENEW}, sent with {@code commitSync}). The
 * renewal runs on its own thread while the consumer thread is inside the listener, which does not
 * touch the consumer: the share consumer refuses concurrent use, not use from another thread, and
 * {@link Renewal#close()} returns only once no renewal is running, before the consumer thread goes
 * back to the consumer.
 * <p>
 * The Kafka 4.2 client holds a renewed record apart until the broker's answer is applied, and then
 * hands it back on the next {@code poll()} if it is still not settled (KAFKA-20458): a renewal waits
 * for the answer and applies it, so that the record can be settled in the same poll; a record the
 * client still hands back is settled by the adapter on its return.
 *
 * @since 0.2.0
 */
public final class ShareLockRenewal implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ShareLockRenewal.class);

	/** Longest the consumer thread waits for the client to take the settlement of a renewed record. */
	private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(2);

	private static final long SETTLE_STEP_MILLIS = 10;

	/** Renewals wait for the broker's answer: two threads, so that one slow answer delays no other. */
	private static final int RENEWAL_THREADS = 2;

	/** Longest a renewal waits for the broker's answer, holding back the end of the method. */
	private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(5);

	private final @Nullable ScheduledExecutorService scheduler;

	private final @Nullable Duration interval;

	/**
	 * Creates the renewal.
	 * @param scheduler the thread renewals run on, or {@code null} to never renew
	 * @param interval how often to renew, or {@code null} for a third of the lock the broker
	 * granted the consumer
	 */
	public ShareLockRenewal(@Nullable ScheduledExecutorService scheduler, @Nullable Duration interval) {
		this.scheduler = scheduler;
		this.interval = interval;
	}

	/**
	 * Stops the renewal thread.
	 */
	@Override
	public void close() {
		if (this.scheduler != null) {
			this.scheduler.shutdownNow();
		}
	}

	/**
	 * A renewal on its own daemon threads.
	 * @param interval how often to renew, or {@code null} for a third of the lock
	 * @return the renewal
	 */
	public static ShareLockRenewal onDaemonThreads(@Nullable Duration interval) {
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(RENEWAL_THREADS, (task) -> {
			Thread thread = new Thread(task, "idempotency-share-renewal");
			thread.setDaemon(true);
			return thread;
		});
		scheduler.setRemoveOnCancelPolicy(true);
		return new ShareLockRenewal(scheduler, interval);
	}

	/**
	 * A renewal that never renews.
	 * @return the renewal
	 */
	public static ShareLockRenewal never() {
		return new ShareLockRenewal(null, null);
	}

	/**
	 * Starts renewing a record's lock.
	 * @param record the record in the method
	 * @param consumer the consumer that acquired it
	 * @param renewed told after each renewal
	 * @return the renewal, to close when the method returns
	 */
	Renewal start(ConsumerRecord<?, ?> record, ShareConsumer<?, ?> consumer, Runnable renewed) {
		long every = intervalMillis(consumer);
		if (this.scheduler == null || every <= 0) {
			return new Renewal(record, consumer, renewed);
		}
		Renewal renewal = new Renewal(record, consumer, renewed);
		renewal.future = this.scheduler.scheduleAtFixedRate(renewal::renewNow, every, every, TimeUnit.MILLISECONDS);
		return renewal;
	}

	private long intervalMillis(ShareConsumer<?, ?> consumer) {
		if (this.interval != null) {
			return this.interval.toMillis();
		}
		try {
			return consumer.acquisitionLockTimeoutMs().map((lock) -> lock / 3L).orElse(0L);
		}
		catch (RuntimeException ex) {
			return 0;
		}
	}

	/**
	 * The renewals of one record while its method runs.
	 */
	static final class Renewal implements AutoCloseable {

		private final ConsumerRecord<?, ?> record;

		@SuppressWarnings("rawtypes")
		private final ShareConsumer consumer;

		private final Runnable renewed;

		private volatile @Nullable ScheduledFuture<?> future;

		private boolean closed;

		private boolean renewedOnce;

		Renewal(ConsumerRecord<?, ?> record, ShareConsumer<?, ?> consumer, Runnable renewed) {
			this.record = record;
			this.consumer = consumer;
			this.renewed = renewed;
		}

		/**
		 * Renews the lock now, unless the renewal is closed. Also called on the consumer thread by
		 * a fail-closed wait.
		 */
		@SuppressWarnings("unchecked")
		synchronized void renewNow() {
			if (this.closed) {
				return;
			}
			try {
				// Applies the previous renewal's answer: the client holds a renewing record apart until then
				this.consumer.commitAsync();
				this.consumer.acknowledge(this.record, AcknowledgeType.RENEW);
				this.consumer.commitSync(COMMIT_TIMEOUT);
				this.consumer.commitAsync();
				this.renewedOnce = true;
				this.renewed.run();
			}
			catch (RuntimeException ex) {
				// The record is being renewed already (its renewal is not back), or the consumer closed
				logger.debug("Could not renew the lock of " + ShareFailurePolicy.describe(this.record), ex);
			}
		}

		/**
		 * Settles a renewed record on the consumer thread, once the client has applied the
		 * renewal's answer: until then it refuses any acknowledgement of the record, and a record
		 * left unsettled would make the next poll fail. Tries for at most {@link #SETTLE_TIMEOUT};
		 * acknowledging a record twice is harmless (the client keeps the last type), so the
		 * container's own acknowledgement after this one does no harm.
		 * @param type the acknowledgement
		 * @return {@code true} if the client took it
		 */
		@SuppressWarnings("unchecked")
		boolean settleRenewed(AcknowledgeType type) {
			long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
			while (true) {
				try {
					this.consumer.commitAsync();
					this.consumer.acknowledge(this.record, type);
					return true;
				}
				catch (IllegalStateException ex) {
					if (System.nanoTime() - deadline >= 0) {
						logger.debug("The client did not take " + type + " of renewed "
								+ ShareFailurePolicy.describe(this.record), ex);
						return false;
					}
					try {
						Thread.sleep(SETTLE_STEP_MILLIS);
					}
					catch (InterruptedException interrupted) {
						Thread.currentThread().interrupt();
						return false;
					}
				}
				catch (RuntimeException ex) {
					logger.debug("Could not settle renewed " + ShareFailurePolicy.describe(this.record), ex);
					return false;
				}
			}
		}

		/**
		 * Whether the lock was renewed: the client then settles the record only on its next poll.
		 * @return {@code true} after a renewal
		 */
		synchronized boolean wasRenewed() {
			return this.renewedOnce;
		}

		/**
		 * Stops renewing; once it returns, no renewal runs. After a renewal, applies its answer (on
		 * the consumer thread), so that the record can be settled in this poll.
		 */
		@Override
		public synchronized void close() {
			this.closed = true;
			ScheduledFuture<?> scheduled = this.future;
			if (scheduled != null) {
				scheduled.cancel(false);
			}
			if (this.renewedOnce) {
				try {
					this.consumer.commitAsync();
				}
				catch (RuntimeException ex) {
					logger.debug("Could not apply the renewal of " + ShareFailurePolicy.describe(this.record), ex);
				}
			}
		}

	}

}

package dev.idempotency.redis.stream;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.PendingMessage;
import org.springframework.data.redis.connection.stream.PendingMessagesSummary;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Finds the entries of one group that were read but never acknowledged, and hands them to the
 * {@link StreamEntryDispatcher} with their delivery counters: a consumer's own pending entries when
 * it starts (its previous incarnation read them and died), and entries idle longer than min-idle in
 * any consumer (XAUTOCLAIM). Entries trimmed from the stream before anyone processed them are
 * acknowledged and counted. It also measures the group's pending entries for the gauges. The entry
 * being delivered is {@linkplain InFlightEntries held}: kept fresh, so that a slow delivery is not
 * claimed again by another consumer.
 * <p>
 * Every method throws what Redis throws; the caller decides how loudly to report it.
 */
final class PendingEntryRecovery {

	/** Bounds one claim run so that a large backlog does not hold the recovery thread. */
	private static final int MAX_CLAIM_PAGES_PER_RUN = 10;

	/** Entries XPENDING lists to find the oldest idle time. */
	private static final int MEASURED_ENTRIES = 100;

	// The container's category, as before the split: logging configuration keeps working.
	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	private final StringRedisTemplate redis;

	private final StreamBinding binding;

	private final RedisStreamSettings settings;

	private final StreamEntryDispatcher dispatcher;

	private final InFlightEntries inFlight;

	private final BooleanSupplier running;

	/**
	 * Creates the recovery of one stream and group.
	 * @param redis the Redis of the stream
	 * @param binding the stream and group
	 * @param settings batch size and min-idle
	 * @param dispatcher delivers the entries found
	 * @param inFlight keeps the entry being delivered fresh
	 * @param running whether the container still runs; a run stops between entries when it does not
	 */
	PendingEntryRecovery(StringRedisTemplate redis, StreamBinding binding, RedisStreamSettings settings,
			StreamEntryDispatcher dispatcher, InFlightEntries inFlight, BooleanSupplier running) {
		this.redis = redis;
		this.binding = binding;
		this.settings = settings;
		this.dispatcher = dispatcher;
		this.inFlight = inFlight;
		this.running = running;
	}

	/**
	 * Delivers the consumer's own pending entries (XPENDING of the consumer), page by page.
	 * @param consumer the consumer
	 */
	void readOwnPending(String consumer) {
		String after = PendingBatch.START;
		while (this.running.getAsBoolean()) {
			PendingBatch batch = run(RedisStreamScripts.READ_OWN_PENDING, this.binding.group(), consumer,
					String.valueOf(this.settings.batchSize()), after);
			if (batch.entries().isEmpty()) {
				return;
			}
			handle(batch, consumer, false);
			after = batch.entries().get(batch.entries().size() - 1).id();
		}
	}

	/**
	 * Claims the entries pending longer than min-idle for {@code claimer} and delivers them, at most
	 * a few pages per run, after refreshing the entries this instance holds in flight.
	 * @param claimer the consumer that takes them over
	 */
	void claimIdleEntries(String claimer) {
		// This instance's in-flight entries first: after a Redis outage they have been idle since it
		// began (nothing could refresh them), and the claim must not take them from their consumer
		this.inFlight.refresh();
		String cursor = PendingBatch.START;
		int pages = 0;
		do {
			PendingBatch batch = run(RedisStreamScripts.AUTOCLAIM, this.binding.group(), claimer,
					String.valueOf(this.settings.minIdle().toMillis()), cursor,
					String.valueOf(this.settings.batchSize()));
			handle(batch, claimer, true);
			cursor = batch.cursor();
		}
		while (this.running.getAsBoolean() && !PendingBatch.START.equals(cursor) && ++pages < MAX_CLAIM_PAGES_PER_RUN);
	}

	/**
	 * Tells the listeners how many entries the group has pending and how long the oldest of the
	 * first hundred has been idle.
	 */
	void measurePending() {
		String stream = this.binding.stream();
		String group = this.binding.group();
		PendingMessagesSummary summary = this.redis.opsForStream().pending(stream, group);
		long pending = (summary != null) ? summary.getTotalPendingMessages() : 0;
		Duration oldestIdle = Duration.ZERO;
		if (pending > 0) {
			for (PendingMessage message : this.redis.opsForStream()
				.pending(stream, group, Range.unbounded(), MEASURED_ENTRIES)) {
				if (message.getElapsedTimeSinceLastDelivery().compareTo(oldestIdle) > 0) {
					oldestIdle = message.getElapsedTimeSinceLastDelivery();
				}
			}
		}
		long measured = pending;
		Duration idle = oldestIdle;
		this.binding.notifyStreamListeners((listener) -> listener.onStreamPending(stream, group, measured, idle));
	}

	private PendingBatch run(@SuppressWarnings("rawtypes") RedisScript<List> script, String... args) {
		return PendingBatch.parse(this.redis.execute(script, List.of(this.binding.stream()), (Object[]) args));
	}

	/**
	 * Delivers a page of pending entries given by id, one at a time: each is read, and its delivery
	 * counted, only when its turn comes, so the entries a consumer took over and died before reaching
	 * keep their counters (a claim of a whole page used to count a delivery for each of them, and
	 * valid entries behind a few killed consumers in a row were dead-lettered, never delivered).
	 */
	private void handle(PendingBatch batch, String consumer, boolean claimed) {
		int trimmed = 0;
		for (String id : batch.deleted()) {
			acknowledge(id);
			trimmed++;
		}
		report(trimmed, claimed ? batch.entries().size() : 0);
		int trimmedSince = 0;
		try (InFlightEntries.Holder holder = this.inFlight.holder(consumer)) {
			trimmedSince = deliver(batch, consumer, holder);
		}
		report(trimmedSince, 0);
	}

	/**
	 * Delivers the entries of a page one at a time, each held while it is delivered.
	 * @return how many were found trimmed
	 */
	private int deliver(PendingBatch batch, String consumer, InFlightEntries.Holder holder) {
		int trimmedSince = 0;
		for (PendingBatch.Entry pending : batch.entries()) {
			if (!this.running.getAsBoolean()) {
				break;
			}
			PendingBatch delivered = run(RedisStreamScripts.DELIVER_PENDING, this.binding.group(), consumer,
					pending.id());
			for (String id : delivered.deleted()) {
				acknowledge(id);
				trimmedSince++;
			}
			for (PendingBatch.Entry entry : delivered.entries()) {
				Map<String, String> fields = entry.fields();
				if (fields == null) {
					acknowledge(entry.id());
					trimmedSince++;
					continue;
				}
				MapRecord<String, String, String> record = StreamRecords.newRecord()
					.in(this.binding.stream())
					.withId(RecordId.of(entry.id()))
					.ofMap(fields);
				holder.hold(List.of(record));
				try {
					this.dispatcher.dispatch(record, consumer, entry.deliveryCount());
				}
				finally {
					holder.release();
				}
			}
		}
		return trimmedSince;
	}

	private void acknowledge(String id) {
		this.redis.opsForStream().acknowledge(this.binding.stream(), this.binding.group(), id);
	}

	private void report(int trimmed, int reclaimed) {
		String stream = this.binding.stream();
		String group = this.binding.group();
		if (trimmed > 0) {
			logger.warn("Acknowledged " + trimmed + " pending entries of stream '" + stream
					+ "' that were trimmed or deleted before they could be processed");
			this.binding.notifyStreamListeners((listener) -> listener.onStreamTrimmed(stream, group, trimmed));
		}
		if (reclaimed > 0) {
			logger.info("Claimed " + reclaimed + " entries of stream '" + stream + "' pending longer than "
					+ this.settings.minIdle());
			this.binding.notifyStreamListeners((listener) -> listener.onStreamReclaimed(stream, group, reclaimed));
		}
	}

}

package dev.idempotency.redis.stream;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.stream.ByteRecord;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;

/**
 * One consumer's subscription to new entries: reads {@code XREADGROUP ... COUNT batch-size BLOCK
 * poll-timeout >} on a connection of its own, hands each entry to the {@link StreamEntryDispatcher},
 * and acknowledges the entries of the read that are done with one XACK on the same connection
 * ({@link ReadStreamAcks}). An entry is acknowledged only after its delivery is done (an
 * {@code @Idempotent} method's transaction committed, or a duplicate); a failed entry stays pending.
 * The entries done are acknowledged earlier when an entry fails, and before the next entry once
 * the oldest has waited {@link #MAX_ACK_WAIT} (or a quarter of min-idle, if less): a done entry
 * left pending past min-idle would be claimed and delivered again. While the read's entries are
 * delivered, they are {@linkplain InFlightEntries held}: kept fresh, so that an entry waiting behind a
 * slow one (or the slow one itself) is not claimed by another consumer once it is idle for min-idle.
 * <p>
 * Errors never end the loop while it runs: the connection is closed (a failover or restart gets a
 * new one), the error handler decides how long to pause, and the loop reads again; acknowledgements
 * that could not be sent are sent before the next read. The first read on each connection does not
 * block, so that the loop learns at once whether Redis answers: every read Redis answered is
 * reported ({@code onRead}), and only such a read shows the subscription reading (at the start and
 * after an error), not a new connection or a read that is still waiting. Entries read and not yet delivered when the
 * loop is cancelled stay pending; the ones already done are acknowledged.
 * <p>
 * With transaction batching, the dispatcher first delivers a read's entries in one transaction
 * ({@link StreamEntryDispatcher#dispatchInOneTransaction}); after its commit they are all recorded
 * for the read's XACK, and if it does not commit they are delivered one by one as above.
 */
final class StreamReadLoop implements Runnable {

	/** The longest an entry that is done waits for the rest of its read to be acknowledged. */
	static final Duration MAX_ACK_WAIT = Duration.ofMillis(100);

	private final RedisConnectionFactory connectionFactory;

	private final String stream;

	private final byte[] streamKey;

	private final String group;

	private final Consumer consumer;

	private final StreamReadOptions options;

	/** The first read on a connection: without BLOCK, answered at once. */
	private final StreamReadOptions firstOptions;

	private final long longestAckWait;

	private final StreamEntryDispatcher dispatcher;

	private final Runnable onRead;

	private final java.util.function.Consumer<MapRecord<String, String, String>> onEntry;

	private final java.util.function.Consumer<Throwable> errorHandler;

	private final BooleanSupplier running;

	private final ReadStreamAcks acks;

	private final InFlightEntries inFlight;

	private volatile boolean cancelled;

	private volatile boolean active = true;

	/**
	 * Creates the loop of one consumer.
	 * @param connectionFactory where its connection comes from
	 * @param binding the stream and group
	 * @param consumer the consumer's name
	 * @param settings batch size and poll timeout
	 * @param dispatcher delivers each entry
	 * @param inFlight keeps the entries of a read fresh while they are delivered
	 * @param onRead told after each read that Redis answered, before its entries are delivered
	 * @param onEntry told about each entry before it is delivered
	 * @param errorHandler handles a failed read or acknowledgement, and pauses as long as it sees fit
	 * @param running whether the container runs
	 */
	StreamReadLoop(RedisConnectionFactory connectionFactory, StreamBinding binding, String consumer,
			RedisStreamSettings settings, StreamEntryDispatcher dispatcher, InFlightEntries inFlight, Runnable onRead,
			java.util.function.Consumer<MapRecord<String, String, String>> onEntry,
			java.util.function.Consumer<Throwable> errorHandler, BooleanSupplier running) {
		this.connectionFactory = connectionFactory;
		this.stream = binding.stream();
		this.streamKey = this.stream.getBytes(StandardCharsets.UTF_8);
		this.group = binding.group();
		this.consumer = Consumer.from(this.group, consumer);
		this.firstOptions = StreamReadOptions.empty().count(settings.batchSize());
		this.options = this.firstOptions.block(settings.pollTimeout());
		this.longestAckWait = longestAckWait(settings.minIdle());
		this.dispatcher = dispatcher;
		this.inFlight = inFlight;
		this.onRead = onRead;
		this.onEntry = onEntry;
		this.errorHandler = errorHandler;
		this.running = running;
		this.acks = new ReadStreamAcks(this.streamKey, this.group);
	}

	@Override
	public void run() {
		RedisConnection connection = null;
		boolean first = true;
		// Closed when the loop ends: what it held and did not deliver is claimed after min-idle.
		InFlightEntries.Holder holder = this.inFlight.holder(this.consumer.getName());
		try {
			while (reading()) {
				try {
					if (connection == null) {
						connection = this.connectionFactory.getConnection();
						this.acks.use(connection);
						first = true;
					}
					read(connection, first ? this.firstOptions : this.options, holder);
					first = false;
				}
				catch (RuntimeException ex) {
					close(connection);
					connection = null;
					if (reading()) {
						this.errorHandler.accept(ex);
					}
				}
			}
		}
		finally {
			if (connection != null) {
				flushQuietly();
			}
			close(connection);
			holder.close();
			this.active = false;
		}
	}

	/** Reads once, delivers what it read and acknowledges the entries that are done. */
	private void read(RedisConnection connection, StreamReadOptions options, InFlightEntries.Holder holder) {
		// What an earlier XACK failed to send (Redis was down): before reading more.
		this.acks.flush();
		List<ByteRecord> records = connection.streamCommands()
			.xReadGroup(this.consumer, options, StreamOffset.create(this.streamKey, ReadOffset.lastConsumed()));
		this.onRead.run();
		if (records == null || records.isEmpty()) {
			return;
		}
		ReadStreamAcks acks = this.acks;
		holder.hold(records);
		try {
			List<MapRecord<String, String, String>> entries = toEntries(records);
			// With transaction batching: all in one transaction, or none and then one by one.
			int settled = reading() ? this.dispatcher.dispatchInOneTransaction(entries, acks, this.onEntry) : 0;
			for (int i = settled; i < entries.size(); i++) {
				if (!reading()) {
					break;
				}
				if (acks.waitingLongerThan(this.longestAckWait)) {
					// Quietly: a failed XACK keeps its ids; the entries still to deliver come first.
					flushQuietly();
				}
				if (acks.size() == 0) {
					// Each entry before this one is acknowledged, or failed (a failure sends the XACK of
					// those done before it): only a retry after min-idle may deliver those again.
					holder.settledBefore(i);
				}
				MapRecord<String, String, String> entry = entries.get(i);
				this.onEntry.accept(entry);
				this.dispatcher.dispatch(entry, this.consumer.getName(), 1, acks);
			}
		}
		finally {
			try {
				acks.flush();
			}
			finally {
				holder.release();
			}
		}
	}

	/**
	 * How long an entry that is done may wait for the rest of its read before it is acknowledged: far
	 * below min-idle, after which a done entry still pending would be claimed and delivered again.
	 */
	static long longestAckWait(Duration minIdle) {
		return Math.min(MAX_ACK_WAIT.toNanos(), minIdle.toNanos() / 4);
	}

	/** The entries as records of strings, in the order read. */
	private List<MapRecord<String, String, String>> toEntries(List<ByteRecord> records) {
		List<MapRecord<String, String, String>> entries = new ArrayList<>(records.size());
		for (ByteRecord record : records) {
			entries.add(toEntry(record));
		}
		return entries;
	}

	/** The entry as a record of strings, without the template's serializer and hash-mapper layers. */
	private MapRecord<String, String, String> toEntry(ByteRecord record) {
		Map<byte[], byte[]> raw = record.getValue();
		Map<String, String> fields = new LinkedHashMap<>(raw.size() * 2);
		for (Map.Entry<byte[], byte[]> field : raw.entrySet()) {
			fields.put(new String(field.getKey(), StandardCharsets.UTF_8),
					new String(field.getValue(), StandardCharsets.UTF_8));
		}
		return MapRecord.create(this.stream, fields).withId(record.getId());
	}

	/** Sends the acknowledgements recorded; if that fails they are kept for the next XACK. */
	private void flushQuietly() {
		try {
			this.acks.flush();
		}
		catch (RuntimeException ex) {
			// Kept: sent again with the next XACK, or, if the loop ends first, left pending and
			// found as duplicates when claimed.
		}
	}

	private boolean reading() {
		return !this.cancelled && this.running.getAsBoolean();
	}

	private static void close(@Nullable RedisConnection connection) {
		if (connection == null) {
			return;
		}
		try {
			connection.close();
		}
		catch (RuntimeException ex) {
			// The connection was broken already: nothing to release.
		}
	}

	/** Ends the loop after its current read (at most the poll timeout). */
	void cancel() {
		this.cancelled = true;
	}

	/**
	 * Whether the loop still reads.
	 * @return {@code false} once it has ended
	 */
	boolean isActive() {
		return this.active;
	}

}

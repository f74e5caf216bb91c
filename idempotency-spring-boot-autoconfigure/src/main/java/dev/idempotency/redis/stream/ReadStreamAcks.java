package dev.idempotency.redis.stream;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.core.RedisCallback;

/**
 * The acknowledgements of one consumer's read loop: an entry is recorded here only once it is done
 * (its transaction committed, or it was a duplicate), and the loop sends them as one XACK on its own
 * connection after the read's last entry, or earlier (an entry failed or is held through an outage,
 * or the oldest has waited long enough). A failed entry is never recorded, so it stays pending. An
 * XACK that fails keeps its ids, to be sent again with the next one (on the next connection after a
 * reconnect): a done entry left pending would be claimed, and with a low max-deliveries given up
 * rather than found a duplicate. Used by one thread.
 */
final class ReadStreamAcks implements StreamAcks {

	private static final RecordId[] NONE = new RecordId[0];

	private final byte[] stream;

	private final String group;

	private final List<RecordId> ids = new ArrayList<>();

	private @Nullable RedisConnection connection;

	private long firstRecordedAt;

	/**
	 * Creates the acknowledgements of one read loop.
	 * @param stream the stream's key
	 * @param group the consumer group
	 */
	ReadStreamAcks(byte[] stream, String group) {
		this.stream = stream;
		this.group = group;
	}

	@Override
	public void acknowledge(RecordId recordId) {
		if (this.ids.isEmpty()) {
			this.firstRecordedAt = System.nanoTime();
		}
		this.ids.add(recordId);
	}

	/**
	 * Sends the acknowledgements, and runs the completing script, on this connection from now on.
	 * @param connection the loop's current connection
	 */
	void use(RedisConnection connection) {
		this.connection = connection;
	}

	@Override
	public <T> @Nullable T execute(RedisCallback<T> action) {
		return action.doInRedis(connection());
	}

	@Override
	public void flush() {
		if (this.ids.isEmpty()) {
			return;
		}
		connection().streamCommands().xAck(this.stream, this.group, this.ids.toArray(NONE));
		this.ids.clear();
	}

	private RedisConnection connection() {
		RedisConnection connection = this.connection;
		if (connection == null) {
			throw new IllegalStateException("No connection to acknowledge on");
		}
		return connection;
	}

	/**
	 * Whether the oldest acknowledgement not yet sent was recorded more than {@code nanos} ago.
	 * @param nanos the longest wait
	 * @return {@code true} if one has waited longer
	 */
	boolean waitingLongerThan(long nanos) {
		return !this.ids.isEmpty() && System.nanoTime() - this.firstRecordedAt > nanos;
	}

	/**
	 * The entries recorded and not yet sent.
	 * @return how many
	 */
	int size() {
		return this.ids.size();
	}

}

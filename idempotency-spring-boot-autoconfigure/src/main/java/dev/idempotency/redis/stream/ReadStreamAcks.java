package dev.idempotency.redis.stream;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.core.RedisCallback;

/**
 * The acknowledgements of one consumer's read: an entry is recorded here only once it is done (its
 * transaction committed, or it was a duplicate), and the read loop sends them as one XACK on its own
 * connection after the read's last entry, or earlier when an entry is held through an outage. A
 * failed entry is never recorded, so it stays pending. Used by one thread.
 */
final class ReadStreamAcks implements StreamAcks {

	private static final RecordId[] NONE = new RecordId[0];

	private final RedisConnection connection;

	private final byte[] stream;

	private final String group;

	private final List<RecordId> ids = new ArrayList<>();

	private long firstRecordedAt;

	/**
	 * Creates the acknowledgements of one read loop.
	 * @param connection the loop's connection
	 * @param stream the stream's key
	 * @param group the consumer group
	 */
	ReadStreamAcks(RedisConnection connection, byte[] stream, String group) {
		this.connection = connection;
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

	@Override
	public <T> @Nullable T execute(RedisCallback<T> action) {
		return action.doInRedis(this.connection);
	}

	@Override
	public void flush() {
		if (this.ids.isEmpty()) {
			return;
		}
		RecordId[] ids = this.ids.toArray(NONE);
		// Forget them first: if the XACK fails they stay pending and come back as duplicates.
		this.ids.clear();
		this.connection.streamCommands().xAck(this.stream, this.group, ids);
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

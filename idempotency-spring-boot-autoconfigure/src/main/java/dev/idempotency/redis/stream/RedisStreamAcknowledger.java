package dev.idempotency.redis.stream;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.CompletingAcknowledger;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.KeyValueIdempotencyStore;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Acknowledges one stream entry (XACK). With a {@link KeyValueIdempotencyStore} it completes the
 * claim and acknowledges in one Lua script (the redis-atomic mode): the key is marked completed
 * and the entry acknowledged together, or neither. That needs the store's entries on the same
 * Redis as the stream; on another server the script finds no claim, declines, and the interceptor
 * completes and acknowledges in two steps.
 * <p>
 * On a Redis Cluster a script may only touch keys of one hash slot. Where the store's entry and the
 * stream hash to different slots (no common hash tag, the usual case), this acknowledger declines
 * before sending anything, and the interceptor completes the key and then acknowledges the entry:
 * a crash between the two leaves a completed key, so the redelivery is skipped as a duplicate. A
 * server that refuses the script with {@code CROSSSLOT} all the same (a cluster behind a proxy that
 * looks standalone) has run nothing, and is declined the same way. It never leaves a committed
 * delivery unacknowledged and its claim in progress, to be run again after the lease.
 *
 * @since 0.1.0
 */
public class RedisStreamAcknowledger implements CompletingAcknowledger {

	private final StreamAcks acks;

	private final String stream;

	private final String group;

	private final RecordId recordId;

	private volatile boolean acknowledged;

	public RedisStreamAcknowledger(StringRedisTemplate redis, String stream, String group, String recordId) {
		this(new TemplateStreamAcks(redis, stream, group), stream, group, RecordId.of(recordId));
	}

	/**
	 * Creates an acknowledger whose XACK goes to {@code acks}: at once, or with the other entries of
	 * the same read once they are all done.
	 * @param acks where the acknowledgement goes
	 * @param stream the stream
	 * @param group the consumer group
	 * @param recordId the entry's id
	 */
	RedisStreamAcknowledger(StreamAcks acks, String stream, String group, RecordId recordId) {
		this.acks = acks;
		this.stream = stream;
		this.group = group;
		this.recordId = recordId;
	}

	@Override
	public void acknowledge() {
		this.acks.acknowledge(this.recordId);
		this.acknowledged = true;
	}

	@Override
	public boolean completeAndAcknowledge(IdempotencyStore store, IdempotencyKey key, ClaimResult claim,
			Duration retention) {
		if (!(store instanceof KeyValueIdempotencyStore keyValue)) {
			return false;
		}
		byte[] entry = bytes(keyValue.storageKey(key));
		byte[] stream = bytes(this.stream);
		byte[][] keysAndArgs = { entry, stream, bytes(keyValue.claimedValue(claim)), bytes(keyValue.completedValue()),
				bytes(String.valueOf(Math.max(1, retention.toMillis()))), bytes(this.group), bytes(this.recordId.getValue()) };
		Long done;
		try {
			done = this.acks.execute((RedisCallback<Long>) (connection) -> {
				if (connection instanceof RedisClusterConnection
						&& !ClusterSlotHashUtil.isSameSlotForAllKeys(entry, stream)) {
					return null;
				}
				return run(connection, RedisStreamScripts.COMPLETE_AND_ACKNOWLEDGE, keysAndArgs);
			});
		}
		catch (DataAccessException ex) {
			if (isCrossSlot(ex)) {
				return false;
			}
			throw ex;
		}
		if (done != null && done == 1L) {
			this.acknowledged = true;
			return true;
		}
		return false;
	}

	/** EVALSHA, or EVAL once the server lost its script cache (a restart, a failover). */
	private static Long run(RedisConnection connection, RedisScript<Long> script, byte[][] keysAndArgs) {
		try {
			return connection.scriptingCommands().evalSha(script.getSha1(), ReturnType.INTEGER, 2, keysAndArgs);
		}
		catch (DataAccessException ex) {
			String message = NestedExceptionUtils.getMostSpecificCause(ex).getMessage();
			if (message == null || !message.contains("NOSCRIPT")) {
				throw ex;
			}
			return connection.scriptingCommands()
				.eval(bytes(script.getScriptAsString()), ReturnType.INTEGER, 2, keysAndArgs);
		}
	}

	private static boolean isCrossSlot(DataAccessException ex) {
		String message = NestedExceptionUtils.getMostSpecificCause(ex).getMessage();
		return message != null && message.startsWith("CROSSSLOT");
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Whether the entry was acknowledged through this acknowledger.
	 * @return {@code true} once XACK was sent successfully, or, for an entry of a consumer's read,
	 * recorded for the read's XACK
	 */
	public boolean isAcknowledged() {
		return this.acknowledged;
	}

}

package dev.idempotency.redis.stream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Creates one stream's consumer group, and recreates it when Redis lost it (a restart without
 * persistence, a failover to a replica that never had it): from the start of the stream, creating
 * the stream if needed (XGROUP CREATE ... 0 MKSTREAM), so that entries still in the stream are
 * delivered again and deduplicated rather than skipped.
 */
final class ConsumerGroups {

	// The container's category, as before the split: logging configuration keeps working.
	private static final Log logger = LogFactory.getLog(RedisStreamListenerContainer.class);

	private static final ReadOffset START = ReadOffset.from("0-0");

	private final StringRedisTemplate redis;

	private final StreamBinding binding;

	ConsumerGroups(StringRedisTemplate redis, StreamBinding binding) {
		this.redis = redis;
		this.binding = binding;
	}

	/**
	 * Creates the group unless it exists (start-up).
	 * @return {@code true} if it was created, {@code false} if it existed
	 * @throws RuntimeException if Redis fails
	 */
	boolean create() {
		boolean created = tryCreate();
		if (created) {
			logger.info("Created consumer group '" + this.binding.group() + "' of stream '" + this.binding.stream() + "'");
		}
		return created;
	}

	/**
	 * Creates the group again after a read found it missing (NOGROUP), and tells the listeners.
	 * @return {@code true} if it was created, {@code false} if another consumer did so first
	 * @throws RuntimeException if Redis fails
	 */
	boolean recreate() {
		boolean created = tryCreate();
		if (created) {
			logger.warn("Recreated consumer group '" + this.binding.group() + "' of stream '" + this.binding.stream()
					+ "' from the start of the stream; entries still in it are delivered again and deduplicated");
			this.binding.notifyStreamListeners(
					(listener) -> listener.onStreamGroupRecreated(this.binding.stream(), this.binding.group()));
		}
		return created;
	}

	private boolean tryCreate() {
		try {
			this.redis.execute((RedisCallback<String>) (connection) -> connection.streamCommands()
				.xGroupCreate(this.binding.streamKey(), this.binding.group(), START, true));
			return true;
		}
		catch (RuntimeException ex) {
			if (hasErrorCode(ex, "BUSYGROUP")) {
				return false;
			}
			throw ex;
		}
	}

	/**
	 * Whether a failure says that the group (or the stream) does not exist.
	 * @param ex the failure
	 * @return {@code true} for a NOGROUP error anywhere in the cause chain
	 */
	static boolean isMissingGroup(Throwable ex) {
		return hasErrorCode(ex, "NOGROUP");
	}

	/**
	 * Whether a failure says that the stream was deleted while the read waited for entries (Redis
	 * answers a blocked {@code XREADGROUP} with {@code UNBLOCKED the stream key no longer exists}).
	 * @param ex the failure
	 * @return {@code true} for an UNBLOCKED error anywhere in the cause chain
	 */
	static boolean isDeletedStream(Throwable ex) {
		return hasErrorCode(ex, "UNBLOCKED");
	}

	private static boolean hasErrorCode(@Nullable Throwable ex, String code) {
		for (Throwable current = ex; current != null; current = current.getCause()) {
			if (current.getMessage() != null && current.getMessage().contains(code)) {
				return true;
			}
			if (current.getCause() == current) {
				break;
			}
		}
		return false;
	}

}

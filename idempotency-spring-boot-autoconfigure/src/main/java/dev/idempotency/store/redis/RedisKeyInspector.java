package dev.idempotency.store.redis;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyKeyInspector;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.support.redis.KeyDetailsScripts;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static dev.idempotency.store.redis.LuaScript.bytes;

/**
 * The {@link IdempotencyKeyInspector} of {@link RedisIdempotencyStore}: an entry as an operator
 * sees it, read with its remaining time and its details' presence in one script, and its release,
 * each in one script ({@link KeyDetailsScripts#INSPECT}, {@link KeyDetailsScripts#RELEASE_KEY}).
 */
final class RedisKeyInspector implements IdempotencyKeyInspector {

	private static final Log logger = LogFactory.getLog(RedisIdempotencyStore.class);

	private static final LuaScript INSPECT = LuaScript.ofSource(KeyDetailsScripts.INSPECT);

	private static final LuaScript RELEASE_KEY = LuaScript.ofSource(KeyDetailsScripts.RELEASE_KEY);

	private final StringRedisTemplate redis;

	private final Function<IdempotencyKey, String> entries;

	/**
	 * Creates an inspector.
	 * @param redis the store's template
	 * @param entries the store's entry key of a key
	 */
	RedisKeyInspector(StringRedisTemplate redis, Function<IdempotencyKey, String> entries) {
		this.redis = redis;
		this.entries = entries;
	}

	/**
	 * Reads the entry, its remaining time and its details' presence in one script.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public @Nullable KeyRecord inspect(IdempotencyKey key) {
		String entry = this.entries.apply(key);
		byte[][] keysAndArgs = { bytes(entry), bytes(KeyDetailsScripts.detailsKey(entry)),
				bytes(KeyDetailsScripts.FINGERPRINT), bytes(KeyDetailsScripts.RESULT) };
		List<?> fields;
		try {
			fields = this.redis.execute((RedisCallback<List<?>>) (connection) -> INSPECT.run(connection,
					ReturnType.MULTI, 2, keysAndArgs), true);
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException("Could not read '" + key + "' in Redis", ex);
		}
		if (fields == null || fields.size() < 4) {
			return null;
		}
		String value = LuaScript.text(fields, 0);
		long pttl = (fields.get(1) instanceof Long millis) ? millis : -1;
		Instant expiresAt = (pttl >= 0) ? Clock.systemUTC().instant().plusMillis(pttl) : null;
		boolean processing = value != null && value.startsWith(RedisIdempotencyStore.PROCESSING);
		return new KeyRecord(key.digestedBeyond(RedisIdempotencyStore.MAX_KEY_LENGTH),
				processing ? KeyRecord.Status.PROCESSING : KeyRecord.Status.COMPLETED, null, expiresAt, processing,
				processing ? expiresAt : null, null, Long.valueOf(1).equals(fields.get(2)),
				Long.valueOf(1).equals(fields.get(3)), null, null);
	}

	/**
	 * Deletes the entry and its details unless the entry is a claim in progress (an ended lease has
	 * vanished with its {@code PX}) and {@code force} is not set, in one script.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	@Override
	public KeyRelease release(IdempotencyKey key, boolean force) {
		String entry = this.entries.apply(key);
		long released = RELEASE_KEY.execute(this.redis, 2, "release", key, new byte[][] { bytes(entry),
				bytes(KeyDetailsScripts.detailsKey(entry)), bytes(force ? "1" : "0") });
		KeyRelease outcome = (released == 1) ? KeyRelease.RELEASED
				: (released == 0) ? KeyRelease.NOT_FOUND : KeyRelease.REFUSED_IN_PROGRESS;
		logger.warn("Release of idempotency key '" + key.value() + "' in namespace '" + key.namespace()
				+ "' (Redis" + (force ? ", forced" : "") + "): " + outcome);
		return outcome;
	}

}

package dev.idempotency.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStoreException;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A Lua script of this package, run by {@code EVALSHA} on the connection at hand (falling back
 * to {@code EVAL} once the server has lost its script cache) without going through
 * {@code RedisTemplate}'s script executor: that opens a proxied connection per call, which cost
 * about a tenth of a claim's client time.
 */
record LuaScript(String sha1, byte[] source) {

	static LuaScript ofSource(String source) {
		return new LuaScript(RedisScript.of(source).getSha1(), bytes(source));
	}

	static LuaScript of(String name) {
		// Read once: a RedisScript on a ResourceScriptSource would check the jar entry's
		// timestamp on every call.
		ClassPathResource resource = new ClassPathResource(name, LuaScript.class);
		try (InputStream in = resource.getInputStream()) {
			String source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			return new LuaScript(RedisScript.of(source).getSha1(), bytes(source));
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read " + resource, ex);
		}
	}

	<T> @Nullable T run(RedisConnection connection, ReturnType returnType, int numKeys, byte[][] keysAndArgs) {
		try {
			return connection.scriptingCommands().evalSha(this.sha1, returnType, numKeys, keysAndArgs);
		}
		catch (DataAccessException ex) {
			String message = NestedExceptionUtils.getMostSpecificCause(ex).getMessage();
			if (message == null || !message.contains("NOSCRIPT")) {
				throw ex;
			}
			return connection.scriptingCommands().eval(this.source, returnType, numKeys, keysAndArgs);
		}
	}

	/**
	 * Runs the script for its integer reply, on a connection of {@code redis}.
	 * @throws IdempotencyStoreException if Redis cannot be reached or answers an error
	 */
	long execute(StringRedisTemplate redis, int numKeys, String operation, IdempotencyKey key,
			byte[][] keysAndArgs) {
		Long result;
		try {
			result = redis.execute((RedisCallback<Long>) (connection) -> run(connection, ReturnType.INTEGER, numKeys,
					keysAndArgs), true);
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException("Could not " + operation + " '" + key + "' in Redis", ex);
		}
		if (result == null) {
			// Only in a pipeline or MULTI, which this store never opens.
			throw new IllegalStateException("Redis returned no result to " + operation + " '" + key + "'");
		}
		return result;
	}

	/** A field of a script's multi-bulk reply as text; {@code null} for a nil or missing one. */
	static @Nullable String text(List<?> fields, int index) {
		Object field = (index < fields.size()) ? fields.get(index) : null;
		return (field instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : null;
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

package dev.idempotency.redis.stream;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.core.RedisCallback;

/**
 * Where the acknowledgements of a delivery go: at once through a template
 * ({@link TemplateStreamAcks}), or collected for the entries of one read and sent as one XACK on the
 * reading consumer's own connection ({@link ReadStreamAcks}).
 */
interface StreamAcks {

	/**
	 * Acknowledges an entry, or records it for the next {@link #flush()}.
	 * @param recordId the entry's id
	 */
	void acknowledge(RecordId recordId);

	/**
	 * Runs a command on the connection the acknowledgements go to (the completing script).
	 * @param <T> the result type
	 * @param action the command
	 * @return its result
	 */
	<T> @Nullable T execute(RedisCallback<T> action);

	/** Sends the acknowledgements recorded since the last flush; nothing when there are none. */
	void flush();

}

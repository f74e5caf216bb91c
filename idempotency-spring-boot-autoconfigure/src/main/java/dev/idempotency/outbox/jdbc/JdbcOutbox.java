package dev.idempotency.outbox.jdbc;

import java.util.Map;
import java.util.UUID;

import dev.idempotency.core.TraceContextCapture;
import dev.idempotency.outbox.Outbox;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * The outbox on the business database: each message is a row inserted with the caller's
 * transaction's connection, with a random UUID as its message id. Payloads other than strings are
 * serialized with the application's Jackson {@link JsonMapper}. After the transaction commits, an
 * optional hook runs (the auto-configuration wakes the local relay with it, so a message does not
 * wait for the relay's next poll). The trace context current at {@code publish}, if a
 * {@link TraceContextCapture} finds one, is stored with the row, and the relay sends it on as the
 * W3C {@code traceparent}.
 *
 * @since 0.1.0
 */
public class JdbcOutbox implements Outbox {

	private static final Log logger = LogFactory.getLog(JdbcOutbox.class);

	private final JdbcOutboxRepository repository;

	private final JsonMapper jsonMapper;

	private final Runnable afterCommit;

	private final TraceContextCapture traceContext;

	/**
	 * Creates an outbox that wakes no relay and stores no trace context.
	 * @param repository the outbox table
	 * @param jsonMapper serializes payloads
	 * @deprecated since 0.2.0, for removal in 0.3.0: use {@link #JdbcOutbox(JdbcOutboxRepository, JsonMapper,
	 * Runnable, TraceContextCapture)} with a no-op {@code Runnable} and {@link TraceContextCapture#NONE}
	 */
	@Deprecated(since = "0.2.0", forRemoval = true)
	public JdbcOutbox(JdbcOutboxRepository repository, JsonMapper jsonMapper) {
		this(repository, jsonMapper, () -> {
		}, TraceContextCapture.NONE);
	}

	/**
	 * Creates an outbox that runs {@code afterCommit} once a transaction that published has
	 * committed (never after a rollback), such as {@link dev.idempotency.outbox.OutboxRelay#wakeUp()},
	 * and stores the trace context current at each {@code publish}.
	 * @param repository the outbox table
	 * @param jsonMapper serializes payloads
	 * @param afterCommit runs on the committing thread; it must be quick, and what it throws is
	 * logged, never passed to the committer
	 * @param traceContext captures the publisher's trace context; {@link TraceContextCapture#NONE}
	 * stores none
	 * @since 0.2.0
	 */
	public JdbcOutbox(JdbcOutboxRepository repository, JsonMapper jsonMapper, Runnable afterCommit,
			TraceContextCapture traceContext) {
		Assert.notNull(repository, "repository must not be null");
		Assert.notNull(jsonMapper, "jsonMapper must not be null");
		Assert.notNull(afterCommit, "afterCommit must not be null");
		Assert.notNull(traceContext, "traceContext must not be null");
		this.repository = repository;
		this.jsonMapper = jsonMapper;
		this.afterCommit = afterCommit;
		this.traceContext = traceContext;
	}

	@Override
	public String publish(String destination, @Nullable String key, Object payload, Map<String, String> headers) {
		Assert.isTrue(StringUtils.hasText(destination), "destination must not be blank");
		Assert.isTrue(destination.length() <= JdbcOutboxRepository.MAX_DESTINATION_LENGTH,
				() -> "destination is longer than " + JdbcOutboxRepository.MAX_DESTINATION_LENGTH + " characters");
		Assert.isTrue(key == null || key.length() <= JdbcOutboxRepository.MAX_KEY_LENGTH,
				() -> "key is longer than " + JdbcOutboxRepository.MAX_KEY_LENGTH + " characters");
		Assert.notNull(payload, "payload must not be null");
		Assert.notNull(headers, "headers must not be null");
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			throw new IllegalTransactionStateException("Outbox.publish must run inside the business transaction "
					+ "(e.g. a @Transactional method), but no transaction is active: the message would be sent even "
					+ "if the business writes were lost");
		}
		if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
			throw new IllegalTransactionStateException("Outbox.publish cannot write in a read-only transaction");
		}
		String messageId = UUID.randomUUID().toString();
		String serialized = (payload instanceof CharSequence text) ? text.toString()
				: this.jsonMapper.writeValueAsString(payload);
		this.repository.insert(messageId, destination, key, serialized, headers, traceparent());
		if (TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(new AfterCommit(this.afterCommit));
		}
		return messageId;
	}

	/** The publisher's trace context; a capture that fails or is too long for the column stores none. */
	private @Nullable String traceparent() {
		try {
			String traceparent = this.traceContext.traceparent();
			return (traceparent != null && traceparent.length() <= JdbcOutboxRepository.MAX_TRACEPARENT_LENGTH)
					? traceparent : null;
		}
		catch (RuntimeException ex) {
			logger.debug("Could not capture the trace context; the message is stored without it", ex);
			return null;
		}
	}

	private record AfterCommit(Runnable hook) implements TransactionSynchronization {

		@Override
		public void afterCommit() {
			try {
				this.hook.run();
			}
			catch (RuntimeException ex) {
				// The business transaction has committed; the relay's poll still finds the row.
				logger.warn("Outbox after-commit hook failed; the message waits for the relay's next poll", ex);
			}
		}

	}

}

package dev.idempotency.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of {@code @Idempotent} methods.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("idempotency")
public class IdempotencyProperties {

	/** Default order of the advisor: just outside Spring's transaction advisor. */
	public static final int DEFAULT_ADVISOR_ORDER = Ordered.LOWEST_PRECEDENCE - 10;

	/**
	 * Whether @Idempotent methods are intercepted. When off, they run as plain methods.
	 */
	private boolean enabled = true;

	/**
	 * How long a processed key is remembered; must cover every way a message can come back
	 * (broker retention, dead-letter re-drive, replays).
	 */
	private Duration retention = Duration.ofDays(7);

	/**
	 * How long a leased store's in-progress claim holds a key before another delivery may take it
	 * over. Longer than the slowest processing, shorter than the broker's redelivery delay.
	 */
	private Duration lease = Duration.ofMinutes(5);

	/**
	 * Whether leased claims are renewed every third of their lease while the method runs, so that a
	 * method slower than the lease keeps its key. When off, the lease must be longer than the
	 * slowest run.
	 */
	private boolean renewLeases = true;

	/**
	 * Whether each duplicate delivery is counted on its key's record (a count and the last time
	 * seen, shown by the idempotency endpoint). Adds a write to the duplicate path, in the
	 * duplicate's transaction; duplicates answered by a filter layer are not counted.
	 */
	private boolean duplicateAccounting;

	/**
	 * Timeout of the transactions the interceptor opens. Zero means the transaction manager's default.
	 */
	private Duration transactionTimeout = Duration.ZERO;

	/**
	 * Name of the PlatformTransactionManager bean the interceptor uses. Unset means the only one or,
	 * among several (Kafka transactions add a KafkaTransactionManager), the one that manages the
	 * JDBC store's DataSource. Start-up fails when the manager does not manage that DataSource.
	 */
	private @Nullable String transactionManager;

	/**
	 * Whether the transactions the interceptor opens on a MySQL or MariaDB DataSource whose
	 * connections are in auto-commit mode (Spring Boot's default) begin with START TRANSACTION
	 * instead of switching auto-commit off and back on, which MariaDB Connector/J sends as two more
	 * round trips per message. Applies with Spring's DataSourceTransactionManager or
	 * JdbcTransactionManager over the JDBC store's DataSource; the application's other transactions
	 * are not changed.
	 */
	private boolean startTransaction = true;

	/**
	 * Order of the @Idempotent advisor. The default runs it just outside @Transactional, which it
	 * joins when present.
	 */
	private int advisorOrder = DEFAULT_ADVISOR_ORDER;

	/**
	 * SpEL expression of the payload whose SHA-256 fingerprint is recorded with each key, for
	 * @Idempotent methods that set no fingerprint of their own (e.g. "#root.args[0]"). A later
	 * delivery of the key with a different fingerprint is refused as a conflict. Unset means no
	 * fingerprints.
	 */
	private @Nullable String fingerprint;

	private final Store store = new Store();

	private final StoredResult storedResult = new StoredResult();

	private final Metrics metrics = new Metrics();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getRetention() {
		return this.retention;
	}

	public void setRetention(Duration retention) {
		this.retention = retention;
	}

	public Duration getLease() {
		return this.lease;
	}

	public void setLease(Duration lease) {
		this.lease = lease;
	}

	public boolean isDuplicateAccounting() {
		return this.duplicateAccounting;
	}

	public void setDuplicateAccounting(boolean duplicateAccounting) {
		this.duplicateAccounting = duplicateAccounting;
	}

	public boolean isRenewLeases() {
		return this.renewLeases;
	}

	public void setRenewLeases(boolean renewLeases) {
		this.renewLeases = renewLeases;
	}

	public Duration getTransactionTimeout() {
		return this.transactionTimeout;
	}

	public void setTransactionTimeout(Duration transactionTimeout) {
		this.transactionTimeout = transactionTimeout;
	}

	public @Nullable String getTransactionManager() {
		return this.transactionManager;
	}

	public void setTransactionManager(@Nullable String transactionManager) {
		this.transactionManager = transactionManager;
	}

	public boolean isStartTransaction() {
		return this.startTransaction;
	}

	public void setStartTransaction(boolean startTransaction) {
		this.startTransaction = startTransaction;
	}

	public int getAdvisorOrder() {
		return this.advisorOrder;
	}

	public void setAdvisorOrder(int advisorOrder) {
		this.advisorOrder = advisorOrder;
	}

	public @Nullable String getFingerprint() {
		return this.fingerprint;
	}

	public void setFingerprint(@Nullable String fingerprint) {
		this.fingerprint = fingerprint;
	}

	public Store getStore() {
		return this.store;
	}

	public StoredResult getStoredResult() {
		return this.storedResult;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	/**
	 * Store selection.
	 */
	public static class Store {

		/**
		 * Type of the default store. Unset means detected: jdbc when there is a single DataSource,
		 * else redis when there is a RedisConnectionFactory and no DataSource at all. The in-memory
		 * and redisson stores are used only when chosen here.
		 */
		private @Nullable StoreType type;

		public @Nullable StoreType getType() {
			return this.type;
		}

		public void setType(@Nullable StoreType type) {
			this.type = type;
		}

	}

	/**
	 * Results stored for @Idempotent(onDuplicate = RETURN_PREVIOUS).
	 */
	public static class StoredResult {

		/**
		 * Largest result stored, serialized as JSON (UTF-8 bytes). A larger result fails the
		 * invocation before commit, as a non-retryable error.
		 */
		private DataSize maxSize = DataSize.ofKilobytes(64);

		public DataSize getMaxSize() {
			return this.maxSize;
		}

		public void setMaxSize(DataSize maxSize) {
			this.maxSize = maxSize;
		}

	}

	/**
	 * Micrometer meters.
	 */
	public static class Metrics {

		/**
		 * Whether outcomes and purges are recorded as Micrometer meters when a MeterRegistry exists.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Kinds of store.
	 */
	public enum StoreType {

		/** The dedup table in the business database (transactional mode). */
		JDBC,

		/** Entries in Redis with a lease (leased mode). */
		REDIS,

		/**
		 * Entries in Redis through the application's RedissonClient, with a lease (leased mode).
		 * @since 0.2.0
		 */
		REDISSON,

		/** This JVM's memory: tests and demos only. */
		IN_MEMORY

	}

}

package dev.idempotency.store.jdbc;

import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotency.support.jdbc.DatabasePlatform;

/**
 * The SQL of {@link JdbcLeasedIdempotencyStore} for one table and database, built once. Every
 * statement that acts on a claim names the key and, where it must be the caller's own claim, its
 * owner token; the affected-row count then tells whether the caller still held it.
 * <p>
 * The reconciler's scan statements come in one version per number of namespaces it is scoped to
 * ({@code namespace IN (?, ...)}), built on first use and kept: a job's namespaces are fixed at
 * start-up, so there are only ever a few.
 */
final class LeasedStatements {

	/** Status of a claim under a lease. */
	static final String PROCESSING = "PROCESSING";

	/** Status of a key a reconciler could not decide. */
	static final String PARKED = "PARKED";

	/** Status of a processed key, as the transactional store writes it. */
	static final String COMPLETED = JdbcIdempotencyStore.COMPLETED;

	private static final String BY_KEY = " WHERE namespace = ? AND idempotency_key = ?";

	private static final String BY_OWNER = BY_KEY + " AND owner_token = ?";

	/** Parameters: namespace, key, lease_until, created_at, expires_at, owner_token. */
	final String insert;

	/** Whether {@link #insert} is a plain insert that fails on a present key (no insert-or-ignore). */
	final boolean insertFailsOnDuplicate;

	/** Parameters: namespace, key. */
	final String select;

	/**
	 * Takes over a completed key whose retention passed. Parameters: owner_token, lease_until,
	 * created_at, expires_at, namespace, key, now.
	 */
	final String takeOverExpired;

	/**
	 * Takes over a claim whose lease ended. Parameters: owner_token, lease_until, created_at,
	 * expires_at, namespace, key, now.
	 */
	final String takeOverEnded;

	/** Parameters: expires_at, namespace, key, owner_token. */
	final String complete;

	/** Parameters: namespace, key, owner_token. */
	final String release;

	/** Parameters: lease_until, namespace, key, owner_token. */
	final String renew;

	/** Parameters: namespace, key, owner_token. */
	final String park;

	/** No parameters, no rows: fails if a column leased mode needs is missing. */
	final String probe;

	/** Locks the oldest ended claims of every namespace. Parameters: now, limit. */
	final String selectUnfinished;

	/** Parameters: owner_token, lease_until, namespace, key, old owner_token, now. */
	final String holdUnfinished;

	/** Of every namespace. Parameters: now. */
	final String oldestUnfinished;

	/** Parameters: limit. */
	final String parked;

	/** Parameters: namespace, limit. */
	final String parkedInNamespace;

	/** Parameters: expires_at, namespace, key. */
	final String markParkedCompleted;

	/** Parameters: namespace, key. */
	final String releaseParked;

	/** Starts a claim's details afresh. Parameters: fingerprint, namespace, key, owner_token. */
	final String recordFingerprint;

	/** Parameters: result_body, namespace, key, owner_token. */
	final String recordResult;

	/** Parameters: namespace, key. */
	final String recorded;

	private final String selectEnded;

	private final String lockOldest;

	private final Map<Integer, Scoped> scoped = new ConcurrentHashMap<>();

	LeasedStatements(DatabasePlatform platform, String table) {
		String columns = " (namespace, idempotency_key, status, lease_until, created_at, expires_at, owner_token,"
				+ " attempts) VALUES (?, ?, '" + PROCESSING + "', ?, ?, ?, ?, 1)";
		this.insert = switch (platform) {
			case POSTGRESQL -> "INSERT INTO " + table + columns + " ON CONFLICT (namespace, idempotency_key) DO NOTHING";
			case MYSQL, MARIADB -> "INSERT IGNORE INTO " + table + columns;
			case GENERIC -> "INSERT INTO " + table + columns;
		};
		this.insertFailsOnDuplicate = (platform == DatabasePlatform.GENERIC);
		this.select = "SELECT status, lease_until, expires_at FROM " + table + BY_KEY;
		String takeOver = "UPDATE " + table + " SET status = '" + PROCESSING
				+ "', owner_token = ?, lease_until = ?, created_at = ?, expires_at = ?, attempts = ";
		this.takeOverExpired = takeOver + "1" + BY_KEY + " AND status = '" + COMPLETED + "' AND expires_at <= ?";
		this.takeOverEnded = takeOver + "attempts + 1" + BY_KEY + " AND status = '" + PROCESSING
				+ "' AND lease_until <= ?";
		this.complete = "UPDATE " + table + " SET status = '" + COMPLETED
				+ "', expires_at = ?, lease_until = NULL, owner_token = NULL" + BY_OWNER;
		String processing = " AND status = '" + PROCESSING + "'";
		this.release = "DELETE FROM " + table + BY_OWNER + processing;
		this.renew = "UPDATE " + table + " SET lease_until = ?" + BY_OWNER + processing;
		this.park = "UPDATE " + table + " SET status = '" + PARKED + "', lease_until = NULL, owner_token = NULL"
				+ BY_OWNER + processing;
		this.probe = "SELECT owner_token, attempts FROM " + table + " WHERE 1 = 0";
		String ended = " WHERE status = '" + PROCESSING + "' AND lease_until <= ?";
		// SKIP LOCKED: concurrent scans split the ended claims instead of queueing behind each other
		// (PostgreSQL, MySQL 8, MariaDB 10.6+). Other databases wait for the lock and then find the
		// claim held by the other scan, which the conditional hold below refuses.
		this.selectEnded = "SELECT namespace, idempotency_key, created_at, attempts, owner_token FROM " + table
				+ ended;
		this.lockOldest = " ORDER BY lease_until" + switch (platform) {
			case POSTGRESQL, MYSQL, MARIADB -> " LIMIT ? FOR UPDATE SKIP LOCKED";
			case GENERIC -> " FETCH FIRST ? ROWS ONLY FOR UPDATE";
		};
		this.selectUnfinished = this.selectEnded + this.lockOldest;
		this.holdUnfinished = "UPDATE " + table + " SET owner_token = ?, lease_until = ?" + BY_KEY
				+ " AND owner_token = ?" + processing + " AND lease_until <= ?";
		this.oldestUnfinished = "SELECT MIN(created_at) AS oldest FROM " + table + ended;
		String selectParked = "SELECT namespace, idempotency_key, created_at, attempts FROM " + table
				+ " WHERE status = '" + PARKED + "'";
		String firstRows = switch (platform) {
			case POSTGRESQL, MYSQL, MARIADB -> " LIMIT ?";
			case GENERIC -> " FETCH FIRST ? ROWS ONLY";
		};
		this.parked = selectParked + " ORDER BY created_at" + firstRows;
		this.parkedInNamespace = selectParked + " AND namespace = ? ORDER BY created_at" + firstRows;
		this.markParkedCompleted = "UPDATE " + table + " SET status = '" + COMPLETED + "', expires_at = ?" + BY_KEY
				+ " AND status = '" + PARKED + "'";
		this.releaseParked = "DELETE FROM " + table + BY_KEY + " AND status = '" + PARKED + "'";
		this.recordFingerprint = "UPDATE " + table + " SET fingerprint = ?, result_body = NULL" + BY_OWNER + processing;
		this.recordResult = "UPDATE " + table + " SET result_body = ?" + BY_OWNER + processing;
		this.recorded = "SELECT fingerprint, result_body FROM " + table + BY_KEY;
	}

	/**
	 * {@link #selectUnfinished} scoped to some namespaces. Parameters: now, each namespace, limit.
	 * @param namespaces how many namespaces; 0 for every namespace
	 */
	String selectUnfinished(int namespaces) {
		return (namespaces == 0) ? this.selectUnfinished : scoped(namespaces).selectUnfinished();
	}

	/**
	 * {@link #oldestUnfinished} scoped to some namespaces. Parameters: now, each namespace.
	 * @param namespaces how many namespaces; 0 for every namespace
	 */
	String oldestUnfinished(int namespaces) {
		return (namespaces == 0) ? this.oldestUnfinished : scoped(namespaces).oldestUnfinished();
	}

	private Scoped scoped(int namespaces) {
		return this.scoped.computeIfAbsent(namespaces, (count) -> {
			String in = " AND namespace IN (" + String.join(", ", Collections.nCopies(count, "?")) + ")";
			return new Scoped(this.selectEnded + in + this.lockOldest, this.oldestUnfinished + in);
		});
	}

	/** The scan's statements for one number of namespaces. */
	private record Scoped(String selectUnfinished, String oldestUnfinished) {
	}

}

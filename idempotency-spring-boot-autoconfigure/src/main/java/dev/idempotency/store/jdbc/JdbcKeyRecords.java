package dev.idempotency.store.jdbc;

import java.time.Clock;
import java.util.List;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.core.RecordedKey;
import dev.idempotency.support.jdbc.DatabasePlatform;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What the JDBC stores read and write about one key besides claiming it: the payload's fingerprint
 * and the stored result, the per-key duplicate count, the record as an operator sees it, and its
 * release.
 * Statements run on the store's {@code JdbcTemplate}, so they join the current transaction when
 * there is one. Keys are passed already digested.
 */
final class JdbcKeyRecords {

	private static final Log logger = LogFactory.getLog(JdbcIdempotencyStore.class);

	private static final String MISSING_COLUMNS = " (does it have the columns of 0.2.0? See schema-upgrade-0.2-*.sql)";

	private final JdbcTemplate jdbc;

	private final DatabasePlatform platform;

	private final String tableName;

	private final Clock clock;

	private final String recordFingerprintSql;

	private final String recordResultSql;

	private final String recordDetailsSql;

	private final String recordedSql;

	private final String recordDuplicateSql;

	private final String inspectSql;

	private final String releaseSql;

	private final String forceReleaseSql;

	JdbcKeyRecords(JdbcTemplate jdbc, DatabasePlatform platform, String tableName, Clock clock) {
		this.jdbc = jdbc;
		this.platform = platform;
		this.tableName = tableName;
		this.clock = clock;
		String record = " WHERE namespace = ? AND idempotency_key = ?";
		this.recordFingerprintSql = "UPDATE " + tableName + " SET fingerprint = ?, result_body = NULL" + record;
		this.recordResultSql = "UPDATE " + tableName + " SET result_body = ?" + record;
		this.recordDetailsSql = "UPDATE " + tableName + " SET fingerprint = ?, result_body = ?" + record;
		this.recordedSql = "SELECT fingerprint, result_body FROM " + tableName + record;
		this.recordDuplicateSql = "UPDATE " + tableName
				+ " SET duplicate_count = duplicate_count + 1, last_duplicate_at = ?" + record;
		// Presence only: a stored result can be large, and the owner token is a credential of the claim.
		this.inspectSql = "SELECT status, created_at, expires_at, lease_until, attempts, duplicate_count,"
				+ " last_duplicate_at,"
				+ " CASE WHEN owner_token IS NULL THEN 0 ELSE 1 END AS has_owner,"
				+ " CASE WHEN fingerprint IS NULL THEN 0 ELSE 1 END AS has_fingerprint,"
				+ " CASE WHEN result_body IS NULL THEN 0 ELSE 1 END AS has_result FROM " + tableName + record;
		this.forceReleaseSql = "DELETE FROM " + tableName + record;
		this.releaseSql = this.forceReleaseSql + " AND (status <> 'PROCESSING' OR lease_until IS NULL"
				+ " OR lease_until <= ?)";
	}

	/** Writes the fingerprint (and clears the result) of a record claimed in the current transaction. */
	void recordFingerprint(IdempotencyKey stored, String fingerprint) {
		update(this.recordFingerprintSql, "fingerprint", stored, fingerprint);
	}

	/** Writes the result of a record claimed in the current transaction. */
	void recordResult(IdempotencyKey stored, String result) {
		update(this.recordResultSql, "result", stored, result);
	}

	/**
	 * Writes the fingerprint and the result (clearing it when {@code null}) of a record claimed in the
	 * current transaction, in one statement; without a fingerprint only the result.
	 */
	void recordDetails(IdempotencyKey stored, @Nullable String fingerprint, @Nullable String result) {
		if (fingerprint == null) {
			if (result != null) {
				recordResult(stored, result);
			}
			return;
		}
		try {
			this.jdbc.update(this.recordDetailsSql, fingerprint, result, stored.namespace(), stored.value());
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException("Could not record the fingerprint and result of '" + stored
					+ "' in table " + this.tableName + MISSING_COLUMNS, ex);
		}
	}

	private void update(String sql, String detail, IdempotencyKey stored, String value) {
		try {
			// The record was claimed in this transaction: it is there, and locked by it.
			this.jdbc.update(sql, value, stored.namespace(), stored.value());
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException(
					"Could not record the " + detail + " of '" + stored + "' in table " + this.tableName + MISSING_COLUMNS,
					ex);
		}
	}

	/** Counts a duplicate delivery on the record, in the current transaction if there is one. */
	void recordDuplicate(IdempotencyKey stored) {
		try {
			this.jdbc.update(this.recordDuplicateSql, this.platform.timestamp(this.clock.instant()), stored.namespace(),
					stored.value());
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException(
					"Could not count a duplicate of '" + stored + "' in table " + this.tableName + MISSING_COLUMNS, ex);
		}
	}

	@Nullable RecordedKey recorded(IdempotencyKey stored) {
		try {
			List<RecordedKey> recorded = this.jdbc.query(this.recordedSql,
					(rs, row) -> new RecordedKey(rs.getString(1), rs.getString(2)), stored.namespace(), stored.value());
			return recorded.isEmpty() ? null : recorded.get(0);
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException(
					"Could not read the details of '" + stored + "' in table " + this.tableName + MISSING_COLUMNS, ex);
		}
	}

	@Nullable KeyRecord inspect(IdempotencyKey stored) {
		try {
			List<KeyRecord> records = this.jdbc.query(this.inspectSql, (rs, row) -> new KeyRecord(stored,
					KeyRecord.Status.valueOf(rs.getString("status")), this.platform.instant(rs, "created_at"),
					this.platform.instant(rs, "expires_at"), rs.getInt("has_owner") == 1,
					this.platform.instant(rs, "lease_until"), rs.getInt("attempts"),
					rs.getInt("has_fingerprint") == 1, rs.getInt("has_result") == 1, rs.getInt("duplicate_count"),
					this.platform.instant(rs, "last_duplicate_at")), stored.namespace(),
					stored.value());
			return records.isEmpty() ? null : records.get(0);
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException("Could not read '" + stored + "' in table " + this.tableName
					+ MISSING_COLUMNS, ex);
		}
	}

	/**
	 * Deletes the record unless it is {@code PROCESSING} under a lease that has not ended (or
	 * {@code force} is set), and logs the release.
	 */
	KeyRelease release(IdempotencyKey key, IdempotencyKey stored, boolean force) {
		KeyRelease outcome;
		try {
			int deleted = force ? this.jdbc.update(this.forceReleaseSql, stored.namespace(), stored.value())
					: this.jdbc.update(this.releaseSql, stored.namespace(), stored.value(),
							this.platform.timestamp(this.clock.instant()));
			// Zero rows: the record is absent or a running claim; a read tells which (a claim that
			// finished meanwhile is reported refused: release again).
			outcome = (deleted > 0) ? KeyRelease.RELEASED
					: (inspect(stored) != null) ? KeyRelease.REFUSED_IN_PROGRESS : KeyRelease.NOT_FOUND;
		}
		catch (DataAccessException ex) {
			throw new IdempotencyStoreException("Could not release '" + key + "' in table " + this.tableName, ex);
		}
		logger.warn("Release of idempotency key '" + key.value() + "' in namespace '" + key.namespace()
				+ "' (table " + this.tableName + (force ? ", forced" : "") + "): " + outcome);
		return outcome;
	}

}

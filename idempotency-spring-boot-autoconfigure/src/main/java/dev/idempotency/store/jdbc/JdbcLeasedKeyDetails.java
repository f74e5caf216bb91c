package dev.idempotency.store.jdbc;

import java.util.List;

import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.RecordedKey;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.transaction.TransactionException;

/**
 * What {@link JdbcLeasedIdempotencyStore} reads and writes about one key besides claiming it: the
 * payload's fingerprint and the stored result, written by the claim's owner by token, and the
 * per-key duplicate count, each in a short transaction of its own (the transactional store's
 * counterpart is {@link JdbcKeyRecords}, which joins the caller's transaction). Keys are passed as
 * given, and digested here.
 */
final class JdbcLeasedKeyDetails {

	private static final Log logger = LogFactory.getLog(JdbcLeasedIdempotencyStore.class);

	private final LeasedTable table;

	private final JdbcKeyRecords keyRecords;

	JdbcLeasedKeyDetails(LeasedTable table) {
		this.table = table;
		this.keyRecords = new JdbcKeyRecords(table.jdbc, table.platform, table.name, table.clock);
	}

	/** Counts the duplicate on the key's record, in a transaction of its own. */
	void recordDuplicate(IdempotencyKey key) {
		IdempotencyKey stored = key.digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH);
		try {
			this.table.inTransaction((status) -> {
				this.keyRecords.recordDuplicate(stored);
				return null;
			});
		}
		catch (TransactionException ex) {
			throw new IdempotencyStoreException("Could not count a duplicate of '" + key + "' in table "
					+ this.table.name, ex);
		}
	}

	/**
	 * Writes the fingerprint (and clears the result) if the record is still this claim's, in a
	 * transaction of its own.
	 */
	void recordFingerprint(IdempotencyKey key, ClaimResult claim, String fingerprint) {
		recordByToken("fingerprint", key, claim, this.table.sql.recordFingerprint, fingerprint);
	}

	/** Writes the result if the record is still this claim's, in a transaction of its own. */
	void recordResult(IdempotencyKey key, ClaimResult claim, String result) {
		recordByToken("result", key, claim, this.table.sql.recordResult, result);
	}

	private void recordByToken(String detail, IdempotencyKey key, ClaimResult claim, String recordSql, String value) {
		IdempotencyKey stored = key.digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH);
		if (this.table.update("record the " + detail + " of", stored, recordSql, value, stored.namespace(),
				stored.value(), claim.token()) == 0) {
			logger.warn("Could not record the " + detail + " of '" + key + "' in table " + this.table.name
					+ ": its lease ended and another worker or the reconciler took the claim over");
		}
	}

	/** Reads the record's fingerprint and result, in a transaction of its own. */
	@Nullable RecordedKey recorded(IdempotencyKey key) {
		IdempotencyKey stored = key.digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH);
		try {
			List<RecordedKey> recorded = this.table.inTransaction((status) -> this.table.jdbc.query(
					this.table.sql.recorded, (rs, row) -> new RecordedKey(rs.getString(1), rs.getString(2)),
					stored.namespace(), stored.value()));
			return (recorded == null || recorded.isEmpty()) ? null : recorded.get(0);
		}
		catch (DataAccessException | TransactionException ex) {
			throw new IdempotencyStoreException("Could not read the details of '" + key + "' in table "
					+ this.table.name, ex);
		}
	}

}

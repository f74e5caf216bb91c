package dev.idempotency.store.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.ParkedKey;
import dev.idempotency.core.ParkedKeys;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.transaction.TransactionException;
import org.springframework.util.Assert;

/**
 * The {@link ParkedKeys} of {@link JdbcLeasedIdempotencyStore}: the {@code PARKED} records of the
 * dedup table, which a reconciler could not decide, listed for a person and marked completed or
 * released by them, each step in a short transaction of its own.
 */
final class JdbcParkedKeys implements ParkedKeys {

	private final LeasedTable table;

	JdbcParkedKeys(LeasedTable table) {
		this.table = table;
	}

	/**
	 * Lists parked keys. A namespace is matched as it is stored: one that is long (or starts with
	 * {@code sha256:}) is looked up by its digest, and a digest as this method lists it is taken as
	 * it is.
	 */
	@Override
	public List<ParkedKey> parked(@Nullable String namespace, int limit) {
		Assert.isTrue(limit >= 1, "limit must be at least 1");
		String stored = (namespace == null || IdempotencyKey.isDigest(namespace)) ? namespace
				: new IdempotencyKey(namespace, "-").digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH).namespace();
		LeasedStatements sql = this.table.sql;
		try {
			List<ParkedKey> parked = this.table.inTransaction((status) -> (stored != null)
					? this.table.jdbc.query(sql.parkedInNamespace, this::parkedKey, stored, limit)
					: this.table.jdbc.query(sql.parked, this::parkedKey, limit));
			return (parked != null) ? parked : List.of();
		}
		catch (DataAccessException | TransactionException ex) {
			throw new IdempotencyStoreException("Could not list parked keys in table " + this.table.name, ex);
		}
	}

	private ParkedKey parkedKey(ResultSet rs, int row) throws SQLException {
		Instant claimedAt = this.table.platform.instant(rs, "created_at");
		Assert.state(claimedAt != null, "created_at is NOT NULL");
		return new ParkedKey(new IdempotencyKey(rs.getString("namespace"), rs.getString("idempotency_key")),
				claimedAt, rs.getInt("attempts"));
	}

	/**
	 * Marks the parked record of {@code key} completed: the key's own record, else, for a key as
	 * {@link #parked} lists it with a digest for a part, the record it names.
	 */
	@Override
	public boolean markCompleted(IdempotencyKey key, Duration retention) {
		Object expiresAt = this.table.platform.timestamp(this.table.clock.instant().plus(retention));
		for (IdempotencyKey stored : parkedRecords(key)) {
			if (this.table.update("mark completed", stored, this.table.sql.markParkedCompleted, expiresAt,
					stored.namespace(), stored.value()) == 1) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Releases the parked record of {@code key}: the key's own record, else, for a key as
	 * {@link #parked} lists it with a digest for a part, the record it names.
	 */
	@Override
	public boolean release(IdempotencyKey key) {
		for (IdempotencyKey stored : parkedRecords(key)) {
			if (this.table.update("release parked", stored, this.table.sql.releaseParked, stored.namespace(),
					stored.value()) == 1) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The records a parked key's operation may mean: the key's own (its stored form), then, when
	 * the key is itself a stored form with a digest in it, that record. {@link #parked} lists a long
	 * key by its digest, often the only name a person has for it; since a part starting with
	 * {@code sha256:} is digested again ({@link IdempotencyKey#digestedBeyond}), that listed name is
	 * not its own stored form and is tried as it is, after the key's own record.
	 */
	private static List<IdempotencyKey> parkedRecords(IdempotencyKey key) {
		IdempotencyKey stored = key.digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH);
		if (stored.equals(key) || !isStoredPart(key.namespace()) || !isStoredPart(key.value())) {
			return List.of(stored);
		}
		return List.of(stored, key);
	}

	private static boolean isStoredPart(String part) {
		return IdempotencyKey.isDigest(part) || (part.length() <= JdbcIdempotencyStore.MAX_KEY_LENGTH
				&& !part.startsWith(IdempotencyKey.DIGEST_PREFIX));
	}

}

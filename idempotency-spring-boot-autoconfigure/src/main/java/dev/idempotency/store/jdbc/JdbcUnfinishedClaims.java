package dev.idempotency.store.jdbc;

import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyReconciler;
import dev.idempotency.core.IdempotencyStoreException;
import dev.idempotency.core.UnfinishedClaim;
import dev.idempotency.core.UnfinishedClaims;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.Assert;

/**
 * The {@link UnfinishedClaims} of {@link JdbcLeasedIdempotencyStore}: claims of the dedup table
 * whose lease ended, held for a reconciler under a token of its own and settled by its verdict,
 * each step in a short transaction of its own.
 */
final class JdbcUnfinishedClaims implements UnfinishedClaims {

	/** Scans of {@link #takeOver} that a deadlock rolled back, before giving up. */
	private static final int MAX_SCAN_ROUNDS = 3;

	private final LeasedTable table;

	private final TransactionTemplate scans;

	JdbcUnfinishedClaims(LeasedTable table) {
		this.table = table;
		// READ COMMITTED for the reconciler's scan: under MySQL's and MariaDB's REPEATABLE READ the
		// locking range read takes gap locks that two scans' updates of lease_until deadlock on.
		this.scans = new TransactionTemplate(table.transactionManager);
		this.scans.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.scans.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
	}

	/**
	 * Locks the oldest ended claims of the namespaces ({@code namespace IN (...)}; all of them when
	 * empty), skipping those another scan has locked where the database can, and holds each under a
	 * new token, all in one short transaction.
	 */
	@Override
	public List<UnfinishedClaim> takeOver(int limit, Duration hold, Collection<String> namespaces) {
		Assert.isTrue(limit >= 1, "limit must be at least 1");
		List<String> scope = scope(namespaces);
		try {
			for (int round = 1;; round++) {
				try {
					List<UnfinishedClaim> held = this.scans
						.execute((status) -> holdUnfinished(limit, hold, scope));
					return (held != null) ? held : List.of();
				}
				catch (PessimisticLockingFailureException ex) {
					// A deadlock with a delivery taking over one of the claims: the database rolled
					// this scan back; scan again.
					if (round == MAX_SCAN_ROUNDS) {
						throw ex;
					}
				}
			}
		}
		catch (DataAccessException | TransactionException ex) {
			throw new IdempotencyStoreException("Could not take over unfinished claims in table " + this.table.name,
					ex);
		}
	}

	/**
	 * The distinct namespaces of a scan, in their order, as stored (a namespace longer than the
	 * column, or starting with {@code sha256:}, as its digest); empty for every namespace.
	 */
	static List<String> scope(Collection<String> namespaces) {
		Assert.notNull(namespaces, "namespaces must not be null");
		Set<String> stored = new LinkedHashSet<>();
		for (String namespace : namespaces) {
			Assert.isTrue(namespace != null && !namespace.isBlank(), "namespaces must not be blank");
			stored.add(new IdempotencyKey(namespace, "-").digestedBeyond(JdbcIdempotencyStore.MAX_KEY_LENGTH)
				.namespace());
		}
		return List.copyOf(stored);
	}

	private static Object[] scanArguments(Object now, List<String> namespaces, Object... last) {
		List<Object> arguments = new ArrayList<>(namespaces.size() + 1 + last.length);
		arguments.add(now);
		arguments.addAll(namespaces);
		arguments.addAll(List.of(last));
		return arguments.toArray();
	}

	private List<UnfinishedClaim> holdUnfinished(int limit, Duration hold, List<String> namespaces) {
		Instant now = this.table.clock.instant();
		Object nowTimestamp = this.table.platform.timestamp(now);
		Object holdUntil = this.table.platform.timestamp(now.plus(hold));
		String selectUnfinished = this.table.sql.selectUnfinished(namespaces.size());
		List<UnfinishedClaim> ended = this.table.jdbc.query(selectUnfinished, (rs, row) -> {
			Instant claimedAt = this.table.platform.instant(rs, "created_at");
			Assert.state(claimedAt != null, "created_at is NOT NULL");
			// The current owner's token, until the hold below replaces it.
			return new UnfinishedClaim(new IdempotencyKey(rs.getString("namespace"), rs.getString("idempotency_key")),
					claimedAt, rs.getInt("attempts"), rs.getString("owner_token"));
		}, scanArguments(nowTimestamp, namespaces, limit));
		List<UnfinishedClaim> held = new ArrayList<>(ended.size());
		for (UnfinishedClaim claim : ended) {
			String token = this.table.tokens.get();
			IdempotencyKey key = claim.key();
			if (this.table.jdbc.update(this.table.sql.holdUnfinished, token, holdUntil, key.namespace(), key.value(),
					claim.token(), nowTimestamp) == 1) {
				held.add(new UnfinishedClaim(key, claim.claimedAt(), claim.attempts(), token));
			}
		}
		return held;
	}

	@Override
	public boolean settle(UnfinishedClaim claim, IdempotencyReconciler.Verdict verdict, Duration retention) {
		IdempotencyKey key = claim.key();
		LeasedStatements sql = this.table.sql;
		return switch (verdict) {
			case COMPLETED -> this.table.completeByToken(key, claim.token(), retention) == 1;
			case RETRY -> this.table.update("release", key, sql.release, key.namespace(), key.value(),
					claim.token()) == 1;
			case MANUAL -> this.table.update("park", key, sql.park, key.namespace(), key.value(), claim.token()) == 1;
		};
	}

	@Override
	public @Nullable Instant oldestUnfinished(Collection<String> namespaces) {
		List<String> scope = scope(namespaces);
		Object now = this.table.platform.timestamp(this.table.clock.instant());
		try {
			return this.table.inTransaction((status) -> this.table.jdbc.query(
					this.table.sql.oldestUnfinished(scope.size()),
					(ResultSet rs) -> rs.next() ? this.table.platform.instant(rs, "oldest") : null,
					scanArguments(now, scope)));
		}
		catch (DataAccessException | TransactionException ex) {
			throw new IdempotencyStoreException("Could not read the oldest unfinished claim in table "
					+ this.table.name, ex);
		}
	}

}

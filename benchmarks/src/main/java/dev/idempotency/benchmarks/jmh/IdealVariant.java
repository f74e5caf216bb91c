package dev.idempotency.benchmarks.jmh;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Message;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * DedupVariant 2, the hand-written ideal: in the business transaction, insert-or-ignore a row into the
 * same {@code idempotency_record} table the starter uses (same columns, same bind types), and skip the
 * business work when no row was inserted. This is the floor for any transactional dedup.
 */
final class IdealVariant implements DedupVariant {

	private static final String COLUMNS = " idempotency_record (namespace, idempotency_key, status, created_at, expires_at)"
			+ " VALUES (?, ?, ?, ?, ?)";

	private static final Duration RETENTION = Duration.ofDays(7);

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final Database database;

	private final String insert;

	IdealVariant(Bench bench) {
		this(bench, false);
	}

	/**
	 * @param takeOverExpired on PostgreSQL, use the starter's statement before its NOT EXISTS guard, which also takes over an
	 * expired record ({@code ON CONFLICT DO UPDATE ... WHERE expired}), instead of {@code DO NOTHING}
	 */
	IdealVariant(Bench bench, boolean takeOverExpired) {
		this.jdbc = bench.jdbc();
		this.transactions = bench.transactions();
		this.database = bench.database();
		this.insert = switch (this.database) {
			case POSTGRESQL -> takeOverExpired ? "INSERT INTO idempotency_record AS r (namespace, idempotency_key,"
					+ " status, created_at, expires_at) VALUES (?, ?, ?, ?, ?)"
					+ " ON CONFLICT (namespace, idempotency_key) DO UPDATE SET status = EXCLUDED.status,"
					+ " created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at"
					+ " WHERE r.expires_at <= EXCLUDED.created_at"
					: "INSERT INTO" + COLUMNS + " ON CONFLICT (namespace, idempotency_key) DO NOTHING";
			case MARIADB -> "INSERT IGNORE INTO" + COLUMNS;
		};
	}

	@Override
	public boolean process(Message message) {
		return this.transactions.execute((status) -> {
			Instant now = Instant.now();
			if (this.jdbc.update(this.insert, "ideal", message.getKey(), "COMPLETED", timestamp(now),
					timestamp(now.plus(RETENTION))) == 0) {
				return Boolean.FALSE;
			}
			Business.apply(this.jdbc, message);
			return Boolean.TRUE;
		});
	}

	private Object timestamp(Instant instant) {
		return switch (this.database) {
			case POSTGRESQL -> OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
			case MARIADB -> LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
		};
	}

}

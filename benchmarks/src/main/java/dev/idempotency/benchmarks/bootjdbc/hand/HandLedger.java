package dev.idempotency.benchmarks.bootjdbc.hand;

import java.time.Duration;
import java.time.Instant;

import dev.idempotency.benchmarks.bootjdbc.Ledger;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.Message;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The hand-written dedup: in the business transaction, insert the key with the database's
 * insert-or-ignore into the table the starter uses, and apply the business writes only if it was
 * inserted.
 */
@Service
public class HandLedger implements Ledger {

	private static final Duration RETENTION = Duration.ofHours(1);

	private final JdbcTemplate jdbc;

	private final LedgerTables tables;

	private final String insert;

	public HandLedger(JdbcTemplate jdbc, @Value("${bench.database}") String database) {
		this.jdbc = jdbc;
		this.tables = LedgerTables.of(Database.of(database));
		this.insert = this.tables.insertOrIgnore();
	}

	@Override
	@Transactional
	public void apply(Message message) {
		Instant now = Instant.now();
		if (this.jdbc.update(this.insert, NAMESPACE, message.getKey(), "COMPLETED", this.tables.timestamp(now),
				this.tables.timestamp(now.plus(RETENTION))) == 1) {
			LedgerTables.apply(this.jdbc, message.getKey(), message.getAccount(), message.getAmount());
		}
	}

}

package dev.idempotency.benchmarks.bootjdbc.starter;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.benchmarks.bootjdbc.Ledger;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.Message;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

/** The business writes under {@code @Idempotent}: the starter opens the transaction and claims the key. */
@Service
public class StarterLedger implements Ledger {

	private final JdbcTemplate jdbc;

	public StarterLedger(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@Override
	@Idempotent(key = "#message.key", namespace = NAMESPACE)
	public void apply(Message message) {
		LedgerTables.apply(this.jdbc, message.getKey(), message.getAccount(), message.getAmount());
	}

}

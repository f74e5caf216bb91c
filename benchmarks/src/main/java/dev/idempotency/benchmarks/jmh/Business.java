package dev.idempotency.benchmarks.jmh;

import dev.idempotency.benchmarks.support.Message;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The business transaction every variant runs for a new message: credit an account, write a ledger
 * row. The caller provides the transaction.
 */
public final class Business {

	static final String CREDIT = "UPDATE bench_account SET balance = balance + ? WHERE id = ?";

	static final String LEDGER = "INSERT INTO bench_ledger (msg_key, account_id, amount) VALUES (?, ?, ?)";

	private Business() {
	}

	/** Applies {@code message} in the current transaction of {@code jdbc}'s DataSource. */
	public static void apply(JdbcTemplate jdbc, Message message) {
		if (jdbc.update(CREDIT, message.getAmount(), message.getAccount()) != 1) {
			throw new IllegalStateException("No account " + message.getAccount());
		}
		jdbc.update(LEDGER, message.getKey(), message.getAccount(), message.getAmount());
	}

}

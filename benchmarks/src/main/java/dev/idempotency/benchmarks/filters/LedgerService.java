package dev.idempotency.benchmarks.filters;

import dev.idempotency.annotation.Idempotent;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The application's consumer method: {@code @Idempotent} on the message id, in the variant's
 * namespace, the business writes inside the transaction the starter opens.
 */
public class LedgerService {

	private final JdbcTemplate jdbc;

	private final String namespace;

	public LedgerService(JdbcTemplate jdbc, @Value("${bench.namespace}") String namespace) {
		this.jdbc = jdbc;
		this.namespace = namespace;
	}

	@Idempotent(key = "#id", namespace = "${bench.namespace}")
	public void onMessage(String id) {
		FilterLedger.apply(this.jdbc, this.namespace, Long.parseLong(id));
	}

}

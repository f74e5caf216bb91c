package dev.idempotency.benchmarks.jmh;

import dev.idempotency.benchmarks.support.Message;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/** DedupVariant 1: the business transaction alone, no deduplication (duplicates are applied again). */
final class PlainVariant implements DedupVariant {

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	PlainVariant(Bench bench) {
		this.jdbc = bench.jdbc();
		this.transactions = bench.transactions();
	}

	@Override
	public boolean process(Message message) {
		return this.transactions.execute((status) -> {
			Business.apply(this.jdbc, message);
			return Boolean.TRUE;
		});
	}

	@Override
	public boolean deduplicates() {
		return false;
	}

}

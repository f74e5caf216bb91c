package dev.idempotency.benchmarks.jmh;

import dev.idempotency.benchmarks.support.Message;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Redis variants: claim the key in Redis, run the business transaction in the database, then mark the
 * key done, or release it on failure.
 */
final class RedisDedupVariant implements DedupVariant {

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final RedisDedup dedup;

	RedisDedupVariant(Bench bench, RedisDedup dedup) {
		this.jdbc = bench.jdbc();
		this.transactions = bench.transactions();
		this.dedup = dedup;
	}

	@Override
	public boolean process(Message message) {
		String key = message.getKey();
		if (!this.dedup.claim(key)) {
			return false;
		}
		try {
			this.transactions.executeWithoutResult((status) -> Business.apply(this.jdbc, message));
		}
		catch (RuntimeException ex) {
			this.dedup.release(key);
			throw ex;
		}
		this.dedup.completed(key);
		return true;
	}

}

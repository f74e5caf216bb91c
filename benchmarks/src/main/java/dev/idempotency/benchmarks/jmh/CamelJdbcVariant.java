package dev.idempotency.benchmarks.jmh;

import dev.idempotency.benchmarks.support.Message;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * DedupVariant 4: Apache Camel's {@link JdbcMessageIdRepository} (camel-sql) driven as Camel's idempotent
 * consumer drives it (eager, remove on failure): {@code add(key)} in its own transaction (a
 * {@code SELECT COUNT(*)} and an {@code INSERT}), then the business transaction, {@code confirm(key)}
 * on success, {@code remove(key)} on failure. Camel creates its table with its default DDL.
 */
final class CamelJdbcVariant implements DedupVariant {

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final JdbcMessageIdRepository repository;

	CamelJdbcVariant(Bench bench) {
		this.jdbc = bench.jdbc();
		this.transactions = bench.transactions();
		this.repository = new JdbcMessageIdRepository(bench.dataSource(), "bench");
		this.repository.start();
	}

	@Override
	public boolean process(Message message) {
		String key = message.getKey();
		if (!this.repository.add(key)) {
			return false;
		}
		try {
			this.transactions.executeWithoutResult((status) -> Business.apply(this.jdbc, message));
		}
		catch (RuntimeException ex) {
			this.repository.remove(key);
			throw ex;
		}
		this.repository.confirm(key);
		return true;
	}

	@Override
	public void close() {
		this.repository.stop();
	}

}

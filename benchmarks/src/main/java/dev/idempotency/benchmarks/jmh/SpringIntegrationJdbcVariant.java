package dev.idempotency.benchmarks.jmh;

import dev.idempotency.benchmarks.support.Message;
import org.springframework.integration.jdbc.metadata.JdbcMetadataStore;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * DedupVariant 5: Spring Integration's {@link JdbcMetadataStore} as a {@code MetadataStoreSelector} uses
 * it: {@code putIfAbsent(key, timestamp)} (one {@code INSERT ... SELECT ... HAVING COUNT(*)=0},
 * auto-committed; on PostgreSQL with {@code ON CONFLICT DO NOTHING}), a non-null answer meaning
 * duplicate; then the business transaction. Spring Integration does not remove the key on failure.
 */
final class SpringIntegrationJdbcVariant implements DedupVariant {

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final JdbcMetadataStore store;

	SpringIntegrationJdbcVariant(Bench bench) {
		this.jdbc = bench.jdbc();
		this.transactions = bench.transactions();
		this.store = new JdbcMetadataStore(bench.dataSource());
		this.store.setRegion("bench");
		this.store.afterPropertiesSet();
		this.store.start();
	}

	@Override
	public boolean process(Message message) {
		if (this.store.putIfAbsent(message.getKey(), Long.toString(System.currentTimeMillis())) != null) {
			return false;
		}
		this.transactions.executeWithoutResult((status) -> Business.apply(this.jdbc, message));
		return true;
	}

	@Override
	public void close() {
		this.store.stop();
	}

}

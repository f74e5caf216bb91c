package dev.idempotency.benchmarks.bootjdbc;

import java.util.Map;

import javax.sql.DataSource;

import dev.idempotency.benchmarks.bootjdbc.hand.HandApplication;
import dev.idempotency.benchmarks.bootjdbc.starter.StarterApplication;
import dev.idempotency.benchmarks.support.BootApps;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.support.TransactionManagerSelector;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;

/**
 * A variant of the Boot JDBC suite: one minimal Spring Boot application ({@code hand} or
 * {@code starter}) given only the connection's URL and credentials, so Spring Boot's Hikari pool
 * (10 connections, auto-commit on), its {@code JdbcTransactionManager} and the server's default
 * isolation. The starter's application also names its dedup table (the suite's, shared with the
 * baseline) and turns the purge off, which runs outside the measured path; the baseline's has
 * {@code idempotency.enabled=false}, so none of the starter's beans.
 */
final class BootJdbcApp implements AutoCloseable {

	private final String name;

	private final ConfigurableApplicationContext context;

	private final Ledger ledger;

	BootJdbcApp(String name, Database database) {
		this(name, database, Map.of());
	}

	/**
	 * @param extra properties added to both applications, such as
	 * {@code spring.datasource.hikari.auto-commit=false}
	 */
	BootJdbcApp(String name, Database database, Map<String, Object> extra) {
		this.name = name;
		Class<?> application = switch (name) {
			case "hand" -> HandApplication.class;
			case "starter" -> StarterApplication.class;
			default -> throw new IllegalArgumentException("Unknown variant '" + name + "'; use hand or starter");
		};
		// The baseline is an application without the starter: none of its beans.
		Map<String, Object> properties = BootApps.variantProperties(database, name);
		properties.putAll(extra);
		this.context = BootApps.run(properties, application);
		this.ledger = this.context.getBean(Ledger.class);
	}

	String name() {
		return this.name;
	}

	Ledger ledger() {
		return this.ledger;
	}

	/**
	 * What the application runs its transactions with: the pool, and for the starter the manager its
	 * interceptor opens transactions with and the {@code DataSource} that manager gets connections
	 * from (a {@code StartTransactionDataSource} on MySQL and MariaDB when {@code START TRANSACTION}
	 * is used).
	 */
	String describe() {
		DataSource dataSource = this.context.getBean(DataSource.class);
		String pool = dataSource.getClass().getSimpleName();
		if (this.name.equals("starter")) {
			TransactionManagerSelector selector = this.context.getBean(TransactionManagerSelector.class);
			PlatformTransactionManager manager = selector.choose(this.context.getBean(IdempotencyStore.class))
				.transactionManager();
			Object resource = (manager instanceof ResourceTransactionManager managed) ? managed.getResourceFactory()
					: null;
			return this.name + ": pool " + pool + ", @Idempotent transactions by "
					+ ((manager != null) ? manager.getClass().getSimpleName() : "none") + " over "
					+ ((resource != null) ? resource.getClass().getSimpleName() : "?");
		}
		PlatformTransactionManager manager = this.context.getBean(PlatformTransactionManager.class);
		return this.name + ": pool " + pool + ", @Transactional by " + manager.getClass().getSimpleName();
	}

	ConfigurableApplicationContext context() {
		return this.context;
	}

	@Override
	public void close() {
		this.context.close();
	}

}

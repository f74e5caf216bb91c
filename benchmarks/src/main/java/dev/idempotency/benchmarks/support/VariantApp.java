package dev.idempotency.benchmarks.support;

import java.util.Map;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The Spring Boot application of one variant of a listener suite (Kafka, RabbitMQ, share groups):
 * everything auto-configured, one listener whose id is {@link #LISTENER_ID}, on Spring Boot's default
 * pool and the database's default isolation (what an application that tunes nothing gets), with the
 * starter's JDBC store on the suites' dedup table for the {@code starter*} variants
 * ({@link BootApps#variantProperties}), a retention of one hour, and the suite's own properties.
 */
public final class VariantApp implements AutoCloseable {

	/**
	 * The id of every variant's listener: one per application, so that its consumer threads, named
	 * after it, can be told from the other variants'.
	 */
	public static final String LISTENER_ID = "${bench.listener-id}";

	private final String name;

	private final int concurrency;

	private final String listenerId;

	private final ConfigurableApplicationContext context;

	/**
	 * Runs the application of variant {@code name} with {@code concurrency} consumers.
	 * @param properties the suite's properties, over the common ones
	 * @param sources the suite's listener and configuration
	 */
	public VariantApp(String name, int concurrency, Database database, Map<String, Object> properties,
			Class<?>... sources) {
		this.name = name;
		this.concurrency = concurrency;
		this.listenerId = "bench-" + name + "-c" + concurrency;
		Map<String, Object> all = BootApps.variantProperties(database, name);
		all.put("bench.listener-id", this.listenerId);
		all.put("idempotency.store.type", "jdbc");
		all.put("idempotency.retention", "1h");
		all.putAll(properties);
		Class<?>[] withApplication = new Class<?>[sources.length + 1];
		withApplication[0] = Application.class;
		System.arraycopy(sources, 0, withApplication, 1, sources.length);
		this.context = BootApps.run(all, withApplication);
	}

	public String name() {
		return this.name;
	}

	public int concurrency() {
		return this.concurrency;
	}

	/** The listener's id, {@code bench-<name>-c<concurrency>}. */
	public String listenerId() {
		return this.listenerId;
	}

	/** The prefix of this variant's consumer thread names. */
	public String consumerThreadPrefix() {
		return this.listenerId + "-";
	}

	public ConfigurableApplicationContext context() {
		return this.context;
	}

	@Override
	public void close() {
		this.context.close();
	}

	/** Everything auto-configured, and the hand-written statements of the database under test. */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		/** The hand-written statements and timestamp binds of the database under test. */
		@Bean
		LedgerTables ledgerTables(@Value("${bench.database}") String database) {
			return LedgerTables.of(Database.of(database));
		}

	}

}

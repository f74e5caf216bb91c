package dev.idempotency.benchmarks.filters;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import dev.idempotency.benchmarks.support.BootApps;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Waits;
import dev.idempotency.metrics.IdempotencyMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.TransactionDefinition;

/**
 * A variant of the filter suite: a Spring Boot application with the starter's JDBC store (its own
 * dedup table and namespace), Spring Boot's default Hikari pool, and the filter layers of the
 * variant's name ({@code none}: filters off) with a Redis prefix of its own. It counts the
 * transactions it opens, reads the filter meters, and can be {@linkplain #restart() restarted}
 * (same table, namespace and Redis prefix), after which its local layers rebuild from the table.
 */
final class FilterApp implements AutoCloseable {

	/** Local layers: rebuilt from the store when the application starts. */
	static final List<String> LOCAL_LAYERS = List.of("bloom", "bitmap");

	private final String name;

	private final String namespace;

	private final Map<String, Object> properties;

	private final AtomicLong nextId;

	private ConfigurableApplicationContext context;

	private boolean restarted;

	FilterApp(String name, String runId, Integer poolSize) {
		this.name = name;
		String slug = name.replaceAll("[^a-z]+", "_");
		this.namespace = "bench-filters-" + slug + "-" + runId;
		this.properties = BootApps.withRedis(defaultPool(poolSize));
		this.properties.put("bench.namespace", this.namespace);
		this.properties.put("idempotency.store.type", "jdbc");
		this.properties.put("idempotency.jdbc.table-name", dedupTable());
		this.properties.put("idempotency.jdbc.initialize-schema", "never");
		this.properties.put("idempotency.jdbc.purge.enabled", "false");
		// Records must outlive the run, and the rebuild window (1 day by default) covers them.
		this.properties.put("idempotency.retention", "1d");
		this.properties.put("idempotency.filter.enabled", !name.equals("none"));
		if (!name.equals("none")) {
			this.properties.put("idempotency.filter.layers", name);
			this.properties.put("idempotency.filter.recent.key-prefix", redisPrefix(runId));
			// Covers the storm: every replayed key was completed minutes before, within this run.
			this.properties.put("idempotency.filter.recent.ttl", "6h");
		}
		this.nextId = new AtomicLong(1);
		this.context = BootApps.run(this.properties, App.class);
	}

	/** Spring Boot's default Hikari pool (10 connections) unless the harness was told a size. */
	private static Map<String, Object> defaultPool(Integer poolSize) {
		Database database = Database.POSTGRESQL;
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.datasource.url", database.url());
		properties.put("spring.datasource.username", database.user());
		properties.put("spring.datasource.password", database.password());
		if (poolSize != null) {
			properties.put("spring.datasource.hikari.maximum-pool-size", poolSize);
		}
		properties.put("spring.main.banner-mode", "off");
		properties.put("logging.level.root", "warn");
		return properties;
	}

	String name() {
		return this.name;
	}

	/** The name in the report: {@code bloom (restarted)} after a restart. */
	String label() {
		return this.restarted ? this.name + " (restarted)" : this.name;
	}

	String namespace() {
		return this.namespace;
	}

	String dedupTable() {
		return dedupTable(this.name);
	}

	/** The dedup table of the variant of that name: it must exist before the application starts. */
	static String dedupTable(String name) {
		return "bench_filter_record_" + name.replaceAll("[^a-z]+", "_");
	}

	String redisPrefix(String runId) {
		return "bench:filters:" + runId + ":" + this.name + ":";
	}

	boolean hasLocalLayer() {
		return LOCAL_LAYERS.stream().anyMatch((layer) -> List.of(this.name.split(",")).contains(layer));
	}

	/** {@code count} fresh ids of this variant, never used before in the run. */
	long reserveIds(long count) {
		return this.nextId.getAndAdd(count);
	}

	void process(long id) {
		this.context.getBean(LedgerService.class).onMessage(Long.toString(id));
	}

	long transactions() {
		return this.context.getBean(CountingTransactionManager.class).begun.get();
	}

	/** {@code idempotency.filter.answers{answer=completed}}, over all layers. */
	double completedAnswers() {
		return meters().find(IdempotencyMeters.FILTER_ANSWERS)
			.tag(IdempotencyMeters.ANSWER_TAG, "completed")
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	/** {@code idempotency.filter.memory} of that layer, or -1 when it has none. */
	double memoryBytes(String layer) {
		Gauge gauge = meters().find(IdempotencyMeters.FILTER_MEMORY).tag(IdempotencyMeters.FILTER_TAG, layer).gauge();
		return (gauge != null) ? gauge.value() : -1;
	}

	/**
	 * Closes the application and starts it again on the same table, namespace and Redis prefix, then
	 * waits until every local layer has been rebuilt from the table.
	 * @return per local layer: the keys its rebuild read and the rebuild's duration in milliseconds
	 * (the {@code idempotency.filter.rebuild.*} gauges), and the wall time from start to ready
	 */
	Map<String, double[]> restart() {
		this.context.close();
		long started = System.nanoTime();
		this.context = BootApps.run(this.properties, App.class);
		this.restarted = true;
		Map<String, double[]> rebuilds = new LinkedHashMap<>();
		for (String layer : this.name.split(",")) {
			if (!LOCAL_LAYERS.contains(layer)) {
				continue;
			}
			Waits.await(layer + " rebuilt", () -> meters().find(IdempotencyMeters.FILTER_REBUILD_KEYS)
				.tag(IdempotencyMeters.FILTER_TAG, layer)
				.gauge() != null);
			double wall = (System.nanoTime() - started) / 1e6;
			TimeGauge took = meters().get(IdempotencyMeters.FILTER_REBUILD_DURATION)
				.tag(IdempotencyMeters.FILTER_TAG, layer)
				.timeGauge();
			rebuilds.put(layer, new double[] { meters().get(IdempotencyMeters.FILTER_REBUILD_KEYS)
				.tag(IdempotencyMeters.FILTER_TAG, layer)
				.gauge()
				.value(), took.value(TimeUnit.MILLISECONDS), wall });
		}
		return rebuilds;
	}

	private MeterRegistry meters() {
		return this.context.getBean(MeterRegistry.class);
	}

	@Override
	public void close() {
		this.context.close();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(LedgerService.class)
	static class App {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		CountingTransactionManager transactionManager(DataSource dataSource) {
			return new CountingTransactionManager(dataSource);
		}

	}

	/** Counts the transactions it begins: a duplicate a filter answered must open none. */
	static class CountingTransactionManager extends JdbcTransactionManager {

		final AtomicLong begun = new AtomicLong();

		CountingTransactionManager(DataSource dataSource) {
			super(dataSource);
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
			this.begun.incrementAndGet();
			super.doBegin(transaction, definition);
		}

	}

}

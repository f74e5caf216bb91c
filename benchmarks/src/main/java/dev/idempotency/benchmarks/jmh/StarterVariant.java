package dev.idempotency.benchmarks.jmh;

import java.util.Map;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.benchmarks.support.BootApps;
import dev.idempotency.benchmarks.support.Message;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * DedupVariant 3: {@code @Idempotent} as an application gets it. A Spring Boot application with the
 * starter and a DataSource (auto-configured: Hikari pool, transaction manager, the starter's store,
 * advisor and interceptor); a bean whose {@code @Idempotent} method runs the business transaction. The
 * benchmark calls the bean's proxy directly (no broker).
 * <p>
 * The store is chosen by properties, so the same class measures any store the starter
 * auto-configures: {@code starter-jdbc} sets {@code idempotency.store.type=jdbc}; a Redis-backed run
 * only needs other properties (see {@link Variants}).
 * <p>
 * The pool is the benchmark's tuned one (the same settings as every hand-built variant) unless the
 * variant asks for {@linkplain Pool#BOOT_DEFAULTS Spring Boot's defaults}, which is what an
 * application gets without tuning.
 */
final class StarterVariant implements DedupVariant {

	private final ConfigurableApplicationContext context;

	private final Listener listener;

	StarterVariant(Bench bench, Map<String, Object> storeProperties) {
		this(bench, storeProperties, Pool.TUNED);
	}

	StarterVariant(Bench bench, Map<String, Object> storeProperties, Pool pool) {
		Map<String, Object> properties = BootApps.withRedis(switch (pool) {
			case TUNED -> BootApps.properties(bench.database(), Bench.poolSize(bench.threads()));
			case BOOT_DEFAULTS -> BootApps.defaultPoolProperties(bench.database());
		});
		properties.put("idempotency.redis.key-prefix", "bench:starter:" + bench.runId() + ":");
		properties.putAll(storeProperties);
		this.context = BootApps.run(properties, App.class);
		this.listener = this.context.getBean(Listener.class);
	}

	@Override
	public boolean process(Message message) {
		return this.listener.onMessage(message);
	}

	@Override
	public void close() {
		this.context.close();
	}

	/** The pool of the starter's application. */
	enum Pool {

		/** The benchmark's pool: {@code 2 x threads + 2} connections, READ COMMITTED on MariaDB. */
		TUNED,

		/**
		 * Spring Boot's defaults: no {@code spring.datasource.hikari.*} setting (10 connections,
		 * auto-commit on) and the server's default isolation.
		 */
		BOOT_DEFAULTS

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Listener.class)
	static class App {

	}

	/** The user's listener: one annotation, the business transaction inside. */
	public static class Listener {

		private final JdbcTemplate jdbc;

		public Listener(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@Idempotent(key = "#msg.key", namespace = "bench")
		public boolean onMessage(Message msg) {
			Business.apply(this.jdbc, msg);
			return true;
		}

	}

}

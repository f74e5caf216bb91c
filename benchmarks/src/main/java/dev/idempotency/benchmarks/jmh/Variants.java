package dev.idempotency.benchmarks.jmh;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The registry of variants by name. The name is the JMH parameter {@code variant}.
 * <p>
 * To measure another store through {@code @Idempotent}, register a {@link StarterVariant} with that
 * store's properties, as {@code starter-redis} does (the Spring Data Redis connection properties and
 * a per-run {@code idempotency.redis.key-prefix} are set by {@link StarterVariant}). Any other
 * Redis-side check is one {@link RedisDedup} class plus one line here.
 */
public final class Variants {

	/** The baseline every ratio is computed against. */
	public static final String BASELINE = "ideal";

	private static final Registry REGISTRY = new Registry();

	static {
		REGISTRY.jdbc("plain", "1 business tx only (no dedup)", PlainVariant::new);
		REGISTRY.jdbc("ideal", "2 hand-written insert-or-ignore in tx", IdealVariant::new);
		REGISTRY.jdbc("starter-jdbc", "3 @Idempotent, starter JDBC store",
				(bench) -> new StarterVariant(bench, Map.of("idempotency.store.type", "jdbc")));
		REGISTRY.jdbc("starter-jdbc-defaults",
				"3b @Idempotent, starter JDBC store, Spring Boot's pool defaults and the server's isolation",
				(bench) -> new StarterVariant(bench, Map.of("idempotency.store.type", "jdbc"),
						StarterVariant.Pool.BOOT_DEFAULTS));
		REGISTRY.jdbc("starter-jdbc-dupcount", "3d @Idempotent, starter JDBC store, per-key duplicate accounting",
				(bench) -> new StarterVariant(bench,
						Map.of("idempotency.store.type", "jdbc", "idempotency.duplicate-accounting", "true")));
		REGISTRY.jdbc("camel-jdbc", "4 Camel JdbcMessageIdRepository", CamelJdbcVariant::new);
		REGISTRY.jdbc("si-jdbc", "5 Spring Integration JdbcMetadataStore", SpringIntegrationJdbcVariant::new);
		REGISTRY.redis("lettuce-setnx", "R1 Lettuce SET NX PX + SET XX", (bench) -> new RedisDedupVariant(bench,
				new LettuceSetNxDedup(bench)));
		REGISTRY.redis("camel-redis", "R2 Camel SpringRedisIdempotentRepository",
				(bench) -> new RedisDedupVariant(bench, new CamelRedisDedup(bench)));
		REGISTRY.redis("si-redis", "R3 Spring Integration RedisMetadataStore",
				(bench) -> new RedisDedupVariant(bench, new SpringIntegrationRedisDedup(bench)));
		// Diagnostic, not in the default matrix (see docs/performance.md, change 4).
		REGISTRY.diagnostic("ideal-takeover",
				"2' variant 2 with the starter's unguarded ON CONFLICT DO UPDATE (diagnostic)",
				(bench) -> new IdealVariant(bench, true));
		REGISTRY.diagnostic("starter-jdbc-defaults-switch",
				"3b' variant 3b with idempotency.start-transaction=false: auto-commit switched off and on (diagnostic)",
				(bench) -> new StarterVariant(bench,
						Map.of("idempotency.store.type", "jdbc", "idempotency.start-transaction", "false"),
						StarterVariant.Pool.BOOT_DEFAULTS));
		REGISTRY.redis("starter-redis", "R4 @Idempotent, starter Redis store",
				(bench) -> new StarterVariant(bench, Map.of("idempotency.store.type", "redis")));
	}

	private Variants() {
	}

	public static List<String> jdbcNames() {
		return List.copyOf(REGISTRY.jdbc.keySet());
	}

	public static List<String> redisNames() {
		return List.copyOf(REGISTRY.redis.keySet());
	}

	public static String label(String name) {
		return REGISTRY.labels.getOrDefault(name, name);
	}

	static DedupVariant create(String name, Bench bench) {
		Function<Bench, DedupVariant> factory = REGISTRY.jdbc.containsKey(name) ? REGISTRY.jdbc.get(name)
				: REGISTRY.redis.containsKey(name) ? REGISTRY.redis.get(name) : REGISTRY.diagnostic.get(name);
		if (factory == null) {
			throw new IllegalArgumentException("Unknown variant '" + name + "'; known: " + REGISTRY.labels.keySet());
		}
		return factory.apply(bench);
	}

/**
	 * The factories and labels by name, filled once by the static initializer of {@link Variants}
	 * and only read afterwards.
	 */
	private static final class Registry {

		private final Map<String, String> labels = new LinkedHashMap<>();

		private final Map<String, Function<Bench, DedupVariant>> jdbc = new LinkedHashMap<>();

		private final Map<String, Function<Bench, DedupVariant>> redis = new LinkedHashMap<>();

		private final Map<String, Function<Bench, DedupVariant>> diagnostic = new LinkedHashMap<>();

		void jdbc(String name, String label, Function<Bench, DedupVariant> factory) {
			this.jdbc.put(name, factory);
			this.labels.put(name, label);
		}

		void redis(String name, String label, Function<Bench, DedupVariant> factory) {
			this.redis.put(name, factory);
			this.labels.put(name, label);
		}

		void diagnostic(String name, String label, Function<Bench, DedupVariant> factory) {
			this.diagnostic.put(name, factory);
			this.labels.put(name, label);
		}

	}

}

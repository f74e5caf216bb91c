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

	/** Label printed in the report for each variant. */
	static final Map<String, String> LABELS = new LinkedHashMap<>();

	private static final Map<String, Function<Bench, Variant>> JDBC = new LinkedHashMap<>();

	private static final Map<String, Function<Bench, Variant>> REDIS = new LinkedHashMap<>();

	private static final Map<String, Function<Bench, Variant>> DIAGNOSTIC = new LinkedHashMap<>();

	/** The baseline every ratio is computed against. */
	public static final String BASELINE = "ideal";

	static {
		jdbc("plain", "1 business tx only (no dedup)", PlainVariant::new);
		jdbc("ideal", "2 hand-written insert-or-ignore in tx", IdealVariant::new);
		jdbc("starter-jdbc", "3 @Idempotent, starter JDBC store",
				(bench) -> new StarterVariant(bench, Map.of("idempotency.store.type", "jdbc")));
		jdbc("camel-jdbc", "4 Camel JdbcMessageIdRepository", CamelJdbcVariant::new);
		jdbc("si-jdbc", "5 Spring Integration JdbcMetadataStore", SpringIntegrationJdbcVariant::new);
		redis("lettuce-setnx", "R1 Lettuce SET NX PX + SET XX", (bench) -> new RedisDedupVariant(bench,
				new LettuceSetNxDedup(bench)));
		redis("camel-redis", "R2 Camel SpringRedisIdempotentRepository",
				(bench) -> new RedisDedupVariant(bench, new CamelRedisDedup(bench)));
		redis("si-redis", "R3 Spring Integration RedisMetadataStore",
				(bench) -> new RedisDedupVariant(bench, new SpringIntegrationRedisDedup(bench)));
		// Diagnostic, not in the default matrix (see docs/performance.md, change 4).
		DIAGNOSTIC.put("ideal-takeover", (bench) -> new IdealVariant(bench, true));
		LABELS.put("ideal-takeover", "2' variant 2 with the starter's unguarded ON CONFLICT DO UPDATE (diagnostic)");
		redis("starter-redis", "R4 @Idempotent, starter Redis store",
				(bench) -> new StarterVariant(bench, Map.of("idempotency.store.type", "redis")));
	}

	private Variants() {
	}

	private static void jdbc(String name, String label, Function<Bench, Variant> factory) {
		JDBC.put(name, factory);
		LABELS.put(name, label);
	}

	private static void redis(String name, String label, Function<Bench, Variant> factory) {
		REDIS.put(name, factory);
		LABELS.put(name, label);
	}

	public static List<String> jdbcNames() {
		return List.copyOf(JDBC.keySet());
	}

	public static List<String> redisNames() {
		return List.copyOf(REDIS.keySet());
	}

	public static String label(String name) {
		return LABELS.getOrDefault(name, name);
	}

	static Variant create(String name, Bench bench) {
		Function<Bench, Variant> factory = JDBC.containsKey(name) ? JDBC.get(name)
				: REDIS.containsKey(name) ? REDIS.get(name) : DIAGNOSTIC.get(name);
		if (factory == null) {
			throw new IllegalArgumentException("Unknown variant '" + name + "'; known: " + LABELS.keySet());
		}
		return factory.apply(bench);
	}

}

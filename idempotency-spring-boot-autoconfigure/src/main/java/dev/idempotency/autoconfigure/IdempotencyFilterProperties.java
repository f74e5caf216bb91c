package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Duplicate filters in front of the dedup store: advisory layers that answer some duplicates (or
 * some new keys) without a database round trip. The store stays the judge. Read by the chain and
 * by the layers of three technologies ({@code filter}, {@code redis.filter}, {@code store.redisson}),
 * it lives with the common auto-configuration rather than in one of theirs.
 *
 * @since 0.2.0
 */
@ConfigurationProperties("idempotency.filter")
public class IdempotencyFilterProperties {

	/** Whether @Idempotent methods ask the filter chain before the store. */
	private boolean enabled;

	/**
	 * The layers, first asked first: {@code bitmap} (exact local bitmap of numeric ids),
	 * {@code bloom} (local Bloom filter), {@code redis-recent} (keys completed recently, in Redis),
	 * {@code redisson-bloom} (a Bloom filter in Redis, shared by every instance),
	 * or the name of a DuplicateFilter bean of your own.
	 */
	private List<String> layers = new ArrayList<>(List.of("bloom", "redis-recent"));

	/** Namespaces the chain applies to; empty for every namespace. */
	private Set<String> namespaces = new LinkedHashSet<>();

	/**
	 * How far back a local filter (bloom, bitmap) reads the store's completed keys when the
	 * application starts; zero for no rebuild. Until the rebuild finishes, the filter passes every
	 * key on.
	 */
	private Duration rebuildWindow = Duration.ofDays(1);

	/** Keys one rebuild query reads. */
	private int rebuildPageSize = 10_000;

	private final Bloom bloom = new Bloom();

	private final Bitmap bitmap = new Bitmap();

	private final Recent recent = new Recent();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public List<String> getLayers() {
		return this.layers;
	}

	public void setLayers(List<String> layers) {
		this.layers = layers;
	}

	public Set<String> getNamespaces() {
		return this.namespaces;
	}

	public void setNamespaces(Set<String> namespaces) {
		this.namespaces = namespaces;
	}

	public Duration getRebuildWindow() {
		return this.rebuildWindow;
	}

	public void setRebuildWindow(Duration rebuildWindow) {
		this.rebuildWindow = rebuildWindow;
	}

	public int getRebuildPageSize() {
		return this.rebuildPageSize;
	}

	public void setRebuildPageSize(int rebuildPageSize) {
		this.rebuildPageSize = rebuildPageSize;
	}

	public Bloom getBloom() {
		return this.bloom;
	}

	public Bitmap getBitmap() {
		return this.bitmap;
	}

	public Recent getRecent() {
		return this.recent;
	}

	/** The local Bloom filter. */
	public static class Bloom {

		/**
		 * Keys per generation; the filter keeps two generations, so it remembers between one and two
		 * times this many keys.
		 */
		private long expectedInsertions = 1_000_000;

		/** False-positive rate of a full generation. */
		private double falsePositiveRate = 0.01;

		/**
		 * Name of the shared Bloom filter in Redis (layer {@code redisson-bloom}); its generations
		 * are named after it.
		 */
		private String sharedName = "idempotency:bloom";

		public long getExpectedInsertions() {
			return this.expectedInsertions;
		}

		public void setExpectedInsertions(long expectedInsertions) {
			this.expectedInsertions = expectedInsertions;
		}

		public double getFalsePositiveRate() {
			return this.falsePositiveRate;
		}

		public void setFalsePositiveRate(double falsePositiveRate) {
			this.falsePositiveRate = falsePositiveRate;
		}

		public String getSharedName() {
			return this.sharedName;
		}

		public void setSharedName(String sharedName) {
			this.sharedName = sharedName;
		}

	}

	/** The exact local bitmap of numeric ids. */
	public static class Bitmap {

		/** The id that maps to bit 0; keys that are not numbers, or are below it, fall through. */
		private long base;

		public long getBase() {
			return this.base;
		}

		public void setBase(long base) {
			this.base = base;
		}

	}

	/** The keys completed recently, in Redis. */
	public static class Recent {

		/**
		 * How long a completed key is remembered. When unset: the Kafka retry budget
		 * (idempotency.kafka.retry.*) plus {@code ttl-margin}.
		 */
		private @Nullable Duration ttl;

		/**
		 * Added to the retry budget when {@code ttl} is unset: covers redeliveries after a crash or a
		 * rebalance (session timeout, max.poll.interval.ms, stream pending recovery).
		 */
		private Duration ttlMargin = Duration.ofHours(1);

		/** Prefix of the Redis keys. */
		private String keyPrefix = "idempotency:recent:";

		public @Nullable Duration getTtl() {
			return this.ttl;
		}

		public void setTtl(@Nullable Duration ttl) {
			this.ttl = ttl;
		}

		public Duration getTtlMargin() {
			return this.ttlMargin;
		}

		public void setTtlMargin(Duration ttlMargin) {
			this.ttlMargin = ttlMargin;
		}

		public String getKeyPrefix() {
			return this.keyPrefix;
		}

		public void setKeyPrefix(String keyPrefix) {
			this.keyPrefix = keyPrefix;
		}

	}

}

package dev.idempotency.filter;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import dev.idempotency.core.IdempotencyKey;

/**
 * A local Bloom filter (Guava's) of completed keys, in two generations so that it never saturates:
 * keys are learned into the current generation; when it holds its expected insertions it becomes
 * the previous one and a new, empty generation starts, so the filter remembers between one and two
 * generations of keys. "Not in either generation" is {@link Answer#ABSENT}, "in one" is
 * {@link Answer#MAYBE}. Until {@link #ready()} (a rebuild from the store is running) every answer
 * is {@link Answer#UNKNOWN}.
 * <p>
 * Sound when every key reaches the same instance (Kafka: the same partition, so the same message
 * key). When it does not, a key completed on another instance is {@code ABSENT} here: the store is
 * asked directly, so only the layers between are skipped; correctness never depends on this filter.
 *
 * @since 0.2.0
 */
public final class BloomDuplicateFilter implements RebuildableFilter {

	private final long expectedInsertions;

	private final double falsePositiveRate;

	private final Object rotation = new Object();

	private final AtomicLong learnedInCurrent = new AtomicLong();

	private volatile BloomFilter<CharSequence> current;

	private volatile BloomFilter<CharSequence> previous;

	private volatile boolean ready;

	/**
	 * Creates an empty filter, {@linkplain #ready() ready} at once.
	 * @param expectedInsertions keys per generation
	 * @param falsePositiveRate the false-positive rate of a full generation, for example 0.01
	 */
	public BloomDuplicateFilter(long expectedInsertions, double falsePositiveRate) {
		if (expectedInsertions < 1) {
			throw new IllegalArgumentException("expectedInsertions must be positive");
		}
		if (!(falsePositiveRate > 0 && falsePositiveRate < 1)) {
			throw new IllegalArgumentException("falsePositiveRate must be between 0 and 1");
		}
		this.expectedInsertions = expectedInsertions;
		this.falsePositiveRate = falsePositiveRate;
		this.current = newGeneration();
		this.previous = newGeneration();
		this.ready = true;
	}

	@Override
	public String name() {
		return "bloom";
	}

	@Override
	public Answer check(IdempotencyKey key) {
		if (!this.ready) {
			return Answer.UNKNOWN;
		}
		String entry = entry(key);
		return (this.current.mightContain(entry) || this.previous.mightContain(entry)) ? Answer.MAYBE
				: Answer.ABSENT;
	}

	@Override
	public void learn(IdempotencyKey key) {
		if (this.current.put(entry(key)) && this.learnedInCurrent.incrementAndGet() >= this.expectedInsertions) {
			rotate();
		}
	}

	/** Bytes of both generations' bit arrays (Guava sizes each with the optimal number of bits). */
	@Override
	public long memoryBytes() {
		return 2 * generationBytes(this.expectedInsertions, this.falsePositiveRate);
	}

	@Override
	public void rebuildStarted() {
		this.ready = false;
	}

	@Override
	public void rebuildFinished() {
		this.ready = true;
	}

	@Override
	public boolean ready() {
		return this.ready;
	}

	/**
	 * The bytes of one generation's bit array, as Guava sizes it: {@code -n ln p / (ln 2)^2} bits,
	 * in 64-bit words.
	 * @param expectedInsertions keys per generation
	 * @param falsePositiveRate the rate of a full generation
	 * @return bytes
	 */
	public static long generationBytes(long expectedInsertions, double falsePositiveRate) {
		long bits = (long) (-expectedInsertions * Math.log(falsePositiveRate) / (Math.log(2) * Math.log(2)));
		return ((bits + 63) / 64) * 8;
	}

	private void rotate() {
		synchronized (this.rotation) {
			if (this.learnedInCurrent.get() < this.expectedInsertions) {
				return;
			}
			this.previous = this.current;
			this.current = newGeneration();
			this.learnedInCurrent.set(0);
		}
	}

	private BloomFilter<CharSequence> newGeneration() {
		return BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), this.expectedInsertions,
				this.falsePositiveRate);
	}

	private static String entry(IdempotencyKey key) {
		return key.namespace() + '\u0000' + key.value();
	}

}

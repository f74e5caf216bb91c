package dev.idempotency.store.redisson;

import java.time.Duration;

import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.core.IdempotencyKey;
import org.redisson.api.RAtomicLong;
import org.redisson.api.RBloomFilter;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;

import org.springframework.util.Assert;

/**
 * A {@link DuplicateFilter} shared by every instance through Redis: Redisson {@link RBloomFilter}s
 * holding {@code <namespace>:<key>} entries (the namespace percent-encoded, long parts digested),
 * so one filter serves every namespace.
 * <p>
 * <b>Answers.</b> A key in neither live generation is {@link Answer#ABSENT ABSENT} (certainly never
 * learned, or learned so long ago that its generation was dropped: the store decides either way);
 * a key in one is {@link Answer#MAYBE MAYBE}, which the next layer or the store confirms. The filter
 * never answers {@link Answer#COMPLETED COMPLETED}.
 * <p>
 * <b>Generations.</b> A Bloom filter past its expected insertions answers "maybe" more and more
 * often. So keys are learned into the current generation, {@code <name>:<n>}, sized for
 * {@code expectedInsertions} at {@code falsePositiveRate}, and checked in it and in the previous
 * one. A counter, {@code <name>:<n>:count}, counts the additions that set a new bit; once it passes
 * {@code expectedInsertions}, generation {@code n + 1} is created and made current (a
 * compare-and-set on {@code <name>:generation}, so concurrent instances rotate once), and
 * generation {@code n - 1} is given a one-minute expiry, long enough for instances that read the
 * old generation number to finish. Redis holds at most three generations, usually two; the
 * false-positive rate of a check is at most about twice the configured one. Every key learned
 * within the last {@code expectedInsertions} new keys is always remembered.
 * <p>
 * A check costs two or three Redis round trips, a learn two to four. A generation that does not
 * exist yet (nothing learned) contains nothing. Thread-safe.
 *
 * @since 0.2.0
 */
public class RedissonBloomFilter implements DuplicateFilter {

	/** How long a dropped generation stays readable for instances that have not seen the rotation. */
	static final Duration DROPPED_GENERATION_GRACE = Duration.ofMinutes(1);

	private final RedissonClient redisson;

	private final String name;

	private final long expectedInsertions;

	private final double falsePositiveRate;

	private final RAtomicLong generation;

	private volatile long initializedGeneration = -1;

	/**
	 * Creates a filter; nothing is written to Redis before the first key is learned.
	 * @param redisson the client
	 * @param name the Redis name the filter's keys start with, e.g. {@code idempotency-bloom}
	 * @param expectedInsertions keys per generation
	 * @param falsePositiveRate the false-positive rate of one generation filled to
	 * {@code expectedInsertions}, e.g. {@code 0.01}
	 */
	public RedissonBloomFilter(RedissonClient redisson, String name, long expectedInsertions,
			double falsePositiveRate) {
		Assert.notNull(redisson, "redisson must not be null");
		Assert.hasText(name, "name must not be empty");
		Assert.isTrue(expectedInsertions > 0, "expectedInsertions must be positive");
		Assert.isTrue(falsePositiveRate > 0 && falsePositiveRate < 1, "falsePositiveRate must be between 0 and 1");
		this.redisson = redisson;
		this.name = name;
		this.expectedInsertions = expectedInsertions;
		this.falsePositiveRate = falsePositiveRate;
		this.generation = redisson.getAtomicLong(name + ":generation");
	}

	@Override
	public String name() {
		return "redisson-bloom";
	}

	/**
	 * Checks the current and the previous generation.
	 * @throws RedisException if Redis cannot be reached (the chain then treats it as unknown)
	 */
	@Override
	public Answer check(IdempotencyKey key) {
		String entry = entry(key);
		long current = this.generation.get();
		if (contains(current, entry) || (current > 0 && contains(current - 1, entry))) {
			return Answer.MAYBE;
		}
		return Answer.ABSENT;
	}

	/**
	 * Adds the key to the current generation, and rotates when it has taken its expected insertions.
	 * @throws RedisException if Redis cannot be reached
	 */
	@Override
	public void learn(IdempotencyKey key) {
		long current = this.generation.get();
		RBloomFilter<String> filter = initialized(current);
		if (filter.add(entry(key))
				&& this.redisson.getAtomicLong(countName(current)).incrementAndGet() > this.expectedInsertions) {
			rotate(current);
		}
	}

	/**
	 * The current generation's number, from 0.
	 * @return the generation
	 */
	public long generation() {
		return this.generation.get();
	}

	public long getExpectedInsertions() {
		return this.expectedInsertions;
	}

	public double getFalsePositiveRate() {
		return this.falsePositiveRate;
	}

	private void rotate(long full) {
		initialized(full + 1);
		if (this.generation.compareAndSet(full, full + 1) && full > 0) {
			filter(full - 1).expire(DROPPED_GENERATION_GRACE);
			this.redisson.getAtomicLong(countName(full - 1)).expire(DROPPED_GENERATION_GRACE);
		}
	}

	private RBloomFilter<String> initialized(long generation) {
		RBloomFilter<String> filter = filter(generation);
		if (this.initializedGeneration < generation) {
			filter.tryInit(this.expectedInsertions, this.falsePositiveRate);
			this.initializedGeneration = generation;
		}
		return filter;
	}

	private boolean contains(long generation, String entry) {
		try {
			return filter(generation).contains(entry);
		}
		catch (IllegalStateException | RedisException ex) {
			if (isNotInitialized(ex)) {
				return false;
			}
			throw ex;
		}
	}

	private RBloomFilter<String> filter(long generation) {
		return this.redisson.getBloomFilter(this.name + ":" + generation, StringCodec.INSTANCE);
	}

	private String countName(long generation) {
		return this.name + ":" + generation + ":count";
	}

	private static String entry(IdempotencyKey key) {
		return RedissonNames.of("", key);
	}

	private static boolean isNotInitialized(RuntimeException ex) {
		return ex.getMessage() != null && ex.getMessage().contains("not initialized");
	}

}

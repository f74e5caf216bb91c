package dev.idempotency.benchmarks.filters;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import dev.idempotency.filter.BloomDuplicateFilter;

/**
 * The memory aim without a database: a local Bloom filter for 10 million keys at 1% false positives
 * in at most 12 MB. Compares {@link BloomDuplicateFilter#generationBytes} with the size of Guava's
 * serialized filter of the same parameters, fills a Guava filter with 10 million keys and measures
 * its false-positive rate on 1 million keys it never saw.
 */
final class BloomSizing {

	static final long KEYS = 10_000_000;

	static final double RATE = 0.01;

	private static final int PROBES = 1_000_000;

	private BloomSizing() {
	}

	/** A Markdown paragraph with the numbers. */
	static String measure() {
		long generation = BloomDuplicateFilter.generationBytes(KEYS, RATE);
		BloomFilter<CharSequence> filter = BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), KEYS, RATE);
		long started = System.nanoTime();
		for (long i = 0; i < KEYS; i++) {
			filter.put("order-" + i);
		}
		double fillSeconds = (System.nanoTime() - started) / 1e9;
		int falsePositives = 0;
		for (long i = KEYS; i < KEYS + PROBES; i++) {
			falsePositives += filter.mightContain("order-" + i) ? 1 : 0;
		}
		long serialized = serializedBytes(filter);
		long twoGenerations = new BloomDuplicateFilter(KEYS, RATE).memoryBytes();
		boolean met = generation <= 12L * 1000 * 1000;
		return String.format("""
				**Local Bloom filter, 10 million keys at 1%% (no database).** One generation's bit array \
				(`BloomDuplicateFilter.generationBytes(10_000_000, 0.01)`): %,d bytes (%.2f MB); Guava's \
				serialized filter of the same parameters: %,d bytes (%.2f MB). Filled with 10 million keys \
				in %.1f s, it answered "might contain" for %,d of %,d keys it never saw: a measured \
				false-positive rate of %.3f%% (expected %.3f%% from Guava). The starter's filter keeps two \
				generations, so its `idempotency.filter.memory` gauge for these settings reads %,d bytes \
				(%.2f MB): the 12 MB aim holds per generation (**%s**). To remember 10 million keys at all \
				times takes `expected-insertions` of 10 million, 24 MB in all; 12 MB in all is `expected-insertions` \
				of 5 million (2 × 6 MB), which remembers the last 5 to 10 million keys, at up to about 2%% false \
				positives when both generations are full.""",
				generation, generation / 1e6, serialized, serialized / 1e6, fillSeconds, falsePositives, PROBES,
				100.0 * falsePositives / PROBES, 100 * filter.expectedFpp(), twoGenerations, twoGenerations / 1e6,
				met ? "met" : "not met");
	}

	private static long serializedBytes(BloomFilter<CharSequence> filter) {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		try {
			filter.writeTo(out);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return out.size();
	}

}

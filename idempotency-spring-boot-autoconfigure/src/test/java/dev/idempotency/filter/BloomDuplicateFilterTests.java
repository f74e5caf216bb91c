package dev.idempotency.filter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import dev.idempotency.core.DuplicateFilter.Answer;
import dev.idempotency.core.IdempotencyKey;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BloomDuplicateFilterTests {

	@Test
	void aLearnedKeyIsMaybeAndANewOneMostlyAbsent() {
		BloomDuplicateFilter filter = new BloomDuplicateFilter(10_000, 0.01);
		for (int i = 0; i < 5_000; i++) {
			filter.learn(key("seen-" + i));
		}
		for (int i = 0; i < 5_000; i++) {
			assertThat(filter.check(key("seen-" + i))).isEqualTo(Answer.MAYBE);
		}
		int falsePositives = 0;
		for (int i = 0; i < 10_000; i++) {
			falsePositives += (filter.check(key("new-" + i)) == Answer.MAYBE) ? 1 : 0;
		}
		assertThat(falsePositives).isLessThan(200);
	}

	@Test
	void theNamespaceIsPartOfTheEntry() {
		BloomDuplicateFilter filter = new BloomDuplicateFilter(1_000, 0.001);
		filter.learn(new IdempotencyKey("a", "k"));
		assertThat(filter.check(new IdempotencyKey("a", "k"))).isEqualTo(Answer.MAYBE);
		assertThat(filter.check(new IdempotencyKey("b", "k"))).isEqualTo(Answer.ABSENT);
	}

	@Test
	void aFullGenerationRotatesAndThePreviousOneIsStillAsked() {
		BloomDuplicateFilter filter = new BloomDuplicateFilter(100, 0.001);
		filter.learn(key("first"));
		for (int i = 0; i < 150; i++) {
			filter.learn(key("fill-" + i));
		}
		// "first" is in the previous generation now; still known.
		assertThat(filter.check(key("first"))).isEqualTo(Answer.MAYBE);
		for (int i = 0; i < 300; i++) {
			filter.learn(key("more-" + i));
		}
		// Two rotations later it is forgotten: the filter does not saturate.
		assertThat(filter.check(key("first"))).isEqualTo(Answer.ABSENT);
	}

	@Test
	void whileRebuildingEveryAnswerIsUnknown() {
		BloomDuplicateFilter filter = new BloomDuplicateFilter(1_000, 0.01);
		filter.rebuildStarted();
		filter.learn(key("k"));
		assertThat(filter.check(key("k"))).isEqualTo(Answer.UNKNOWN);
		assertThat(filter.check(key("other"))).isEqualTo(Answer.UNKNOWN);
		filter.rebuildFinished();
		assertThat(filter.check(key("k"))).isEqualTo(Answer.MAYBE);
	}

	@Test
	void memoryIsTheSizeOfGuavasBitArrays() throws IOException {
		BloomFilter<CharSequence> guava = BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), 100_000,
				0.01);
		ByteArrayOutputStream serialized = new ByteArrayOutputStream();
		guava.writeTo(serialized);
		// writeTo: 1 byte strategy, 1 byte hash count, 4 bytes word count, then the words.
		assertThat(BloomDuplicateFilter.generationBytes(100_000, 0.01)).isEqualTo(serialized.size() - 6);
		assertThat(new BloomDuplicateFilter(100_000, 0.01).memoryBytes()).isEqualTo(2 * (serialized.size() - 6));
	}

	@Test
	void tenMillionKeysAtOnePercentFitInTwelveMegabytesPerGeneration() {
		assertThat(BloomDuplicateFilter.generationBytes(10_000_000, 0.01)).isLessThanOrEqualTo(12_000_000);
	}

	private static IdempotencyKey key(String value) {
		return new IdempotencyKey("ns", value);
	}

}

package dev.idempotency.filter;

import dev.idempotency.core.DuplicateFilter.Answer;
import dev.idempotency.core.IdempotencyKey;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class NumericIdBitmapFilterTests {

	private final NumericIdBitmapFilter filter = new NumericIdBitmapFilter(1_000_000);

	@Test
	void aLearnedIdIsCompletedAndAnotherIsAbsent() {
		this.filter.learn(key("1000005"));
		assertThat(this.filter.check(key("1000005"))).isEqualTo(Answer.COMPLETED);
		assertThat(this.filter.check(key("1000006"))).isEqualTo(Answer.ABSENT);
		assertThat(this.filter.check(new IdempotencyKey("other", "1000005"))).isEqualTo(Answer.ABSENT);
	}

	@Test
	void keysThatAreNotNumbersAtOrAboveTheBaseFallThrough() {
		this.filter.learn(key("abc"));
		this.filter.learn(key("999999"));
		assertThat(this.filter.check(key("abc"))).isEqualTo(Answer.UNKNOWN);
		assertThat(this.filter.check(key("999999"))).isEqualTo(Answer.UNKNOWN);
		assertThat(this.filter.check(key("-5"))).isEqualTo(Answer.UNKNOWN);
		assertThat(this.filter.check(key("99999999999999999999999"))).isEqualTo(Answer.UNKNOWN);
		assertThat(this.filter.memoryBytes()).isZero();
	}

	@Test
	void whileRebuildingAnIdItHasNotLearnedIsUnknown() {
		this.filter.rebuildStarted();
		this.filter.learn(key("1000001"));
		assertThat(this.filter.check(key("1000001"))).isEqualTo(Answer.COMPLETED);
		assertThat(this.filter.check(key("1000002"))).isEqualTo(Answer.UNKNOWN);
		this.filter.rebuildFinished();
		assertThat(this.filter.check(key("1000002"))).isEqualTo(Answer.ABSENT);
	}

	@Test
	void denseIdsTakeLittleMemory() {
		for (long id = 1_000_000; id < 2_000_000; id++) {
			this.filter.learn(key(Long.toString(id)));
		}
		assertThat(this.filter.memoryBytes()).isPositive().isLessThan(1_000_000 / 8 + 10_000);
	}

	private static IdempotencyKey key(String value) {
		return new IdempotencyKey("ns", value);
	}

}

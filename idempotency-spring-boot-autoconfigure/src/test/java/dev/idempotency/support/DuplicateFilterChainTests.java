package dev.idempotency.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.idempotency.core.DuplicateFilter.Answer;
import dev.idempotency.core.DuplicateFilter;
import dev.idempotency.core.DuplicateFilterListener;
import dev.idempotency.core.IdempotencyKey;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DuplicateFilterChainTests {

	private final List<String> answers = new ArrayList<>();

	private final DuplicateFilterListener listener = new DuplicateFilterListener() {
		@Override
		public void onFilterAnswer(String filter, Answer answer) {
			DuplicateFilterChainTests.this.answers.add(filter + "=" + answer);
		}
	};

	@Test
	void completedSkipsTheStoreAndTheLayersAfterIt() {
		DuplicateFilterChain chain = chain(fixed("a", Answer.MAYBE), fixed("b", Answer.COMPLETED),
				fixed("c", Answer.UNKNOWN));
		assertThat(chain.check(key("ns", "k")).completed()).isTrue();
		assertThat(this.answers).containsExactly("a=MAYBE", "b=COMPLETED");
	}

	@Test
	void absentSendsTheKeyStraightToTheStore() {
		DuplicateFilterChain chain = chain(fixed("bloom", Answer.ABSENT), fixed("recent", Answer.COMPLETED));
		DuplicateFilterChain.Verdict verdict = chain.check(key("ns", "k"));
		assertThat(verdict.completed()).isFalse();
		assertThat(verdict.maybe()).isEmpty();
		assertThat(this.answers).containsExactly("bloom=ABSENT");
	}

	@Test
	void maybeLayersAreRememberedForFalsePositives() {
		DuplicateFilter bloom = fixed("bloom", Answer.MAYBE);
		DuplicateFilterChain chain = chain(bloom, fixed("recent", Answer.UNKNOWN));
		assertThat(chain.check(key("ns", "k")).maybe()).containsExactly(bloom);
	}

	@Test
	void aFailingLayerIsUnknown() {
		DuplicateFilter failing = new Fixed("down", Answer.COMPLETED) {
			@Override
			public Answer check(IdempotencyKey key) {
				throw new IllegalStateException("down");
			}
		};
		DuplicateFilterChain chain = chain(failing, fixed("recent", Answer.COMPLETED));
		assertThat(chain.check(key("ns", "k")).completed()).isTrue();
		assertThat(this.answers).containsExactly("down=UNKNOWN", "recent=COMPLETED");
	}

	@Test
	void namespacesLimitTheChain() {
		Fixed recent = fixed("recent", Answer.COMPLETED);
		DuplicateFilterChain chain = new DuplicateFilterChain(List.of(recent), Set.of("orders"),
				() -> List.of(this.listener));
		assertThat(chain.check(key("payments", "k")).completed()).isFalse();
		chain.learn(key("payments", "k"));
		chain.learn(key("orders", "k"));
		assertThat(recent.learned).containsExactly("orders/k");
		assertThat(chain.check(key("orders", "k")).completed()).isTrue();
	}

	@Test
	void aLayerThatCannotLearnDoesNotStopTheOthers() {
		Fixed failing = new Fixed("down", Answer.UNKNOWN) {
			@Override
			public void learn(IdempotencyKey key) {
				throw new IllegalStateException("down");
			}
		};
		Fixed recent = fixed("recent", Answer.UNKNOWN);
		chain(failing, recent).learn(key("ns", "k"));
		assertThat(recent.learned).containsExactly("ns/k");
	}

	private DuplicateFilterChain chain(DuplicateFilter... filters) {
		return new DuplicateFilterChain(List.of(filters), Set.of(), () -> List.of(this.listener));
	}

	private static Fixed fixed(String name, Answer answer) {
		return new Fixed(name, answer);
	}

	private static IdempotencyKey key(String namespace, String value) {
		return new IdempotencyKey(namespace, value);
	}

	static class Fixed implements DuplicateFilter {

		private final String name;

		private final Answer answer;

		final List<String> learned = new ArrayList<>();

		Fixed(String name, Answer answer) {
			this.name = name;
			this.answer = answer;
		}

		@Override
		public String name() {
			return this.name;
		}

		@Override
		public Answer check(IdempotencyKey key) {
			return this.answer;
		}

		@Override
		public void learn(IdempotencyKey key) {
			this.learned.add(key.namespace() + "/" + key.value());
		}

	}

}

package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The comparison of {@link KafkaRetentionCheck}: dedup retentions and topic retentions in,
 * findings out.
 */
class KafkaRetentionCheckTests {

	private static final long DAY_MS = Duration.ofDays(1).toMillis();

	private static final Duration MARGIN = Duration.ofDays(1);

	@Test
	void dedupRetentionShorterThanTheTopicsIsReportedWithBothNumbersAndTheFix() {
		List<RetentionFinding> findings = KafkaRetentionCheck.compare(
				List.of(listener("OrderListener#onOrder", 7, "orders")), Map.of("orders", delete("orders", 10)),
				MARGIN);
		assertThat(findings).singleElement().satisfies((finding) -> {
			assertThat(finding.kind()).isEqualTo(RetentionFinding.Kind.TOO_SHORT);
			assertThat(finding.requiredRetention()).isEqualTo(Duration.ofDays(11));
			assertThat(finding.message()).contains("OrderListener#onOrder")
				.contains("keeps keys for 7d")
				.contains("topic 'orders' keeps records for 10d (retention.ms=864000000)")
				.contains("idempotency.retention or @Idempotent(retention) to at least 11d")
				.contains("lower the topic's retention.ms to at most 518400000 (6d)");
		});
	}

	@Test
	void dedupRetentionEqualToTheTopicsIsStillShortByTheMargin() {
		assertThat(KafkaRetentionCheck.compare(List.of(listener("A#a", 7, "t")), Map.of("t", delete("t", 7)), MARGIN))
			.singleElement()
			.satisfies((finding) -> assertThat(finding.requiredRetention()).isEqualTo(Duration.ofDays(8)));
	}

	@Test
	void dedupRetentionCoveringTheTopicAndTheMarginPasses() {
		assertThat(KafkaRetentionCheck.compare(List.of(listener("A#a", 12, "t"), listener("B#b", 11, "t")),
				Map.of("t", delete("t", 10)), MARGIN))
			.isEmpty();
	}

	@Test
	void eachMethodAndTopicIsOneFinding() {
		List<RetentionFinding> findings = KafkaRetentionCheck.compare(
				List.of(listener("A#a", 7, "short", "long", "longer"), listener("B#b", 30, "long")),
				Map.of("short", delete("short", 3), "long", delete("long", 10), "longer", delete("longer", 14)),
				MARGIN);
		assertThat(findings).extracting((finding) -> finding.methods().get(0) + "@" + finding.topic().topic())
			.containsExactly("A#a@long", "A#a@longer");
	}

	@Test
	void marginIsConfigurable() {
		assertThat(KafkaRetentionCheck.compare(List.of(listener("A#a", 8, "t")), Map.of("t", delete("t", 7)),
				Duration.ZERO))
			.isEmpty();
		assertThat(KafkaRetentionCheck.compare(List.of(listener("A#a", 8, "t")), Map.of("t", delete("t", 7)),
				Duration.ofDays(7)))
			.singleElement()
			.satisfies((finding) -> assertThat(finding.message()).contains("at least 14d")
				.contains("the 7d margin")
				.contains("at most 86400000 (1d)"));
	}

	@Test
	void lowerTheTopicIsNotSuggestedWhenTheMarginAloneExceedsTheDedupRetention() {
		assertThat(KafkaRetentionCheck.compare(List.of(listener("A#a", 1, "t")), Map.of("t", delete("t", 7)),
				Duration.ofDays(2)))
			.singleElement()
			.satisfies((finding) -> assertThat(finding.message()).contains("at least 9d")
				.doesNotContain("lower the topic"));
	}

	@Test
	void infiniteAndCompactedTopicsAreReportedOncePerTopicAsUnbounded() {
		List<RetentionFinding> findings = KafkaRetentionCheck.compare(
				List.of(listener("A#a", 7, "forever", "compacted"), listener("B#b", 365, "forever")),
				Map.of("forever", new TopicRetention("forever", -1, "delete"), "compacted",
						new TopicRetention("compacted", 7 * DAY_MS, "compact,delete")),
				MARGIN);
		assertThat(findings).allSatisfy(
				(finding) -> assertThat(finding.kind()).isEqualTo(RetentionFinding.Kind.UNBOUNDED));
		assertThat(findings).extracting((finding) -> finding.topic().topic()).containsExactly("forever", "compacted");
		assertThat(findings.get(0).methods()).containsExactly("A#a", "B#b");
		assertThat(findings.get(0).message()).contains("retention.ms=-1").contains("no dedup retention can cover");
		assertThat(findings.get(1).message()).contains("cleanup.policy=compact,delete");
	}

	@Test
	void topicsWithoutARetentionAreNotChecked() {
		assertThat(KafkaRetentionCheck.compare(List.of(listener("A#a", 1, "unknown")), Map.of(), MARGIN)).isEmpty();
	}

	@Test
	void durationsArePrintedInTheLargestExactUnit() {
		assertThat(RetentionFinding.format(Duration.ofDays(7))).isEqualTo("7d");
		assertThat(RetentionFinding.format(Duration.ofHours(36))).isEqualTo("36h");
		assertThat(RetentionFinding.format(Duration.ofMinutes(90))).isEqualTo("90m");
		assertThat(RetentionFinding.format(Duration.ofSeconds(45))).isEqualTo("45s");
		assertThat(RetentionFinding.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
		assertThat(RetentionFinding.format(Duration.ZERO)).isEqualTo("0ms");
	}

	private static IdempotentKafkaListener listener(String method, int retentionDays, String... topics) {
		return new IdempotentKafkaListener(method, Duration.ofDays(retentionDays), List.of(topics), null, method,
				Map.of("", Set.of(topics)));
	}

	private static TopicRetention delete(String topic, int retentionDays) {
		return new TopicRetention(topic, retentionDays * DAY_MS, "delete");
	}

}

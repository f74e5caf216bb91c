package dev.idempotency.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DedupRetentionTooShortFailureAnalyzer}.
 */
class DedupRetentionTooShortFailureAnalyzerTests {

	private final DedupRetentionTooShortFailureAnalyzer analyzer = new DedupRetentionTooShortFailureAnalyzer();

	@Test
	void descriptionListsEveryFinding() {
		FailureAnalysis analysis = this.analyzer.analyze(new DedupRetentionTooShortException(
				List.of("@Idempotent A#a keeps keys for 7d but topic 'orders' keeps records for 10d",
						"@Idempotent B#b keeps keys for 1d but topic 'audit' keeps records for 7d")));
		assertThat(analysis.getDescription()).contains("processed twice")
			.contains("A#a keeps keys for 7d")
			.contains("B#b keeps keys for 1d");
	}

	@Test
	void actionNamesBothFixesAndTheWarnMode() {
		FailureAnalysis analysis = this.analyzer
			.analyze(new DedupRetentionTooShortException(List.of("@Idempotent A#a keeps keys for 7d")));
		assertThat(analysis.getAction()).contains("idempotency.retention")
			.contains("@Idempotent(retention")
			.contains("retention.ms")
			.contains("idempotency.kafka.retention-check=warn");
	}

}

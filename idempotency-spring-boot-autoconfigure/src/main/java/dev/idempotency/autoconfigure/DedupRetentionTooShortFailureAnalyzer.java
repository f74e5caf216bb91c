package dev.idempotency.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains how to make the dedup retention cover the topics that {@code @Idempotent} Kafka
 * listeners read.
 */
class DedupRetentionTooShortFailureAnalyzer extends AbstractFailureAnalyzer<DedupRetentionTooShortException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, DedupRetentionTooShortException cause) {
		return new FailureAnalysis("""
				A replayed Kafka record would be processed twice: an @Idempotent listener forgets its keys before \
				the topic it reads deletes the records, so an offset reset, a new consumer group or a seek can \
				redeliver records whose keys are gone.
				\t- """ + String.join("\n\t- ", cause.getFindings()), """
				For each listener above, do one of:
				\t- raise idempotency.retention (every method) or @Idempotent(retention = "...") (that method) \
				to at least the value named above;
				\t- lower the topic's retention.ms (kafka-configs.sh --alter --entity-type topics \
				--add-config retention.ms=...).
				Or set idempotency.kafka.retention-check=warn to start with a warning instead.""", cause);
	}

}

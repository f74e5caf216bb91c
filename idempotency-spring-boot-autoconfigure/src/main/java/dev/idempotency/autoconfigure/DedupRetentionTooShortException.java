package dev.idempotency.autoconfigure;

import java.util.List;

/**
 * The dedup retention of one or more {@code @Idempotent} Kafka listeners is shorter than the
 * retention of a topic they read plus the margin ({@code idempotency.kafka.retention-check=fail}).
 *
 * @since 0.1.0
 */
public class DedupRetentionTooShortException extends IllegalStateException {

	private final List<String> findings;

	/**
	 * Creates the exception.
	 * @param findings one sentence per method and topic, with both retentions and the fix
	 */
	public DedupRetentionTooShortException(List<String> findings) {
		super("The dedup retention of @Idempotent Kafka listeners is shorter than their topics' retention:\n\t- "
				+ String.join("\n\t- ", findings));
		this.findings = List.copyOf(findings);
	}

	public List<String> getFindings() {
		return this.findings;
	}

}

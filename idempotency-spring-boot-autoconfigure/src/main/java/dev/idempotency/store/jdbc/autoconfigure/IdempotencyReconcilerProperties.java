package dev.idempotency.store.jdbc.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the scan that settles leased claims whose lease ended without completion, with the
 * application's {@code IdempotencyReconciler} bean. Without such a bean there is no scan, and the
 * next delivery of a key takes over its ended lease.
 *
 * @since 0.2.0
 */
@ConfigurationProperties("idempotency.reconciler")
public class IdempotencyReconcilerProperties {

	/** Whether the scan runs when an IdempotencyReconciler bean exists. */
	private boolean enabled = true;

	/** Time between the end of one scan and the start of the next. */
	private Duration interval = Duration.ofSeconds(30);

	/** Unfinished claims taken over and decided at a time; one scan takes at most ten batches. */
	private int batchSize = 100;

	/**
	 * How long the reconciler holds a claim it is deciding: no delivery and no other instance acts
	 * on the key meanwhile. Longer than the reconciler's slowest decision.
	 */
	private Duration hold = Duration.ofMinutes(1);

	/**
	 * Namespaces whose unfinished claims the scan takes over, for a dedup table shared with other
	 * applications; empty (the default) for every namespace in the table.
	 */
	private List<String> namespaces = new ArrayList<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getInterval() {
		return this.interval;
	}

	public void setInterval(Duration interval) {
		this.interval = interval;
	}

	public int getBatchSize() {
		return this.batchSize;
	}

	public void setBatchSize(int batchSize) {
		this.batchSize = batchSize;
	}

	public Duration getHold() {
		return this.hold;
	}

	public void setHold(Duration hold) {
		this.hold = hold;
	}

	public List<String> getNamespaces() {
		return this.namespaces;
	}

	public void setNamespaces(List<String> namespaces) {
		this.namespaces = namespaces;
	}

}

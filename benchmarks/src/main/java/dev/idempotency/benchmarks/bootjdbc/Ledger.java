package dev.idempotency.benchmarks.bootjdbc;

import dev.idempotency.benchmarks.support.Message;

/**
 * The one bean of a minimal application of the Boot JDBC suite: applies a message's business writes
 * once per distinct key, in one transaction with the dedup insert.
 */
public interface Ledger {

	/** The dedup namespace both variants write, so that each round checks the same table. */
	String NAMESPACE = "bench";

	/** Applies {@code message}, or skips it as a duplicate of a key already applied. */
	void apply(Message message);

}

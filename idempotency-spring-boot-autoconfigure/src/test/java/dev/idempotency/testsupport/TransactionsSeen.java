package dev.idempotency.testsupport;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The transactions listener methods ran in, for tests of transaction batching: each call records
 * the resource its transaction bound for the {@link DataSource} (its connection holder), one object
 * per transaction, so that the distinct ones count the transactions and the records count the calls.
 * Thread-safe.
 */
public final class TransactionsSeen {

	private final DataSource dataSource;

	private final Map<String, List<Object>> seen = new ConcurrentHashMap<>();

	/**
	 * Records the transactions of one data source.
	 * @param dataSource the data source whose transactions are counted
	 */
	public TransactionsSeen(DataSource dataSource) {
		this.dataSource = dataSource;
	}

	/**
	 * Records a call of a listener in the transaction bound to the current thread.
	 * @param listener the listener's name
	 */
	public void record(String listener) {
		Object transaction = TransactionSynchronizationManager.getResource(this.dataSource);
		this.seen.computeIfAbsent(listener, (name) -> new CopyOnWriteArrayList<>()).add(transaction);
	}

	/**
	 * Calls of a listener recorded so far.
	 * @param listener the listener's name
	 * @return how many
	 */
	public int calls(String listener) {
		return this.seen.getOrDefault(listener, List.of()).size();
	}

	/**
	 * Distinct transactions the recorded calls of a listener ran in.
	 * @param listener the listener's name
	 * @return how many
	 */
	public int transactions(String listener) {
		Set<Object> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
		distinct.addAll(this.seen.getOrDefault(listener, List.of()));
		return distinct.size();
	}

}

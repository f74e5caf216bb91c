package dev.idempotency.support.jdbc;

import java.util.function.IntSupplier;

import org.springframework.transaction.support.TransactionTemplate;

/**
 * Deletes a backlog in bounded batches, each in a transaction of its own that is committed before
 * the next starts, so that a large backlog never holds long locks and every counted row is gone for
 * good (on a pool with auto-commit off, an uncommitted delete would be rolled back when its
 * connection returns to the pool). Shared by the dedup purge and the outbox purge.
 *
 * @since 0.1.0
 */
public final class BatchedPurge {

	private BatchedPurge() {
	}

	/**
	 * Runs {@code batch} until it deletes fewer than {@code batchSize} rows or ran
	 * {@code maxBatches} times.
	 * @param transactions starts a new transaction per batch ({@code REQUIRES_NEW}, so that a batch
	 * never joins a caller's transaction)
	 * @param batchSize the most rows one batch deletes
	 * @param maxBatches the most batches to run
	 * @param batch deletes at most {@code batchSize} rows and returns how many it deleted
	 * @return how many rows were deleted and committed
	 * @throws org.springframework.dao.DataAccessException if a batch fails or cannot commit; it is
	 * rolled back, and the batches before it stay deleted
	 */
	public static int run(TransactionTemplate transactions, int batchSize, int maxBatches, IntSupplier batch) {
		int total = 0;
		for (int run = 0; run < maxBatches; run++) {
			Integer committed = transactions.execute((status) -> batch.getAsInt());
			int deleted = (committed != null) ? committed : 0;
			total += deleted;
			if (deleted < batchSize) {
				break;
			}
		}
		return total;
	}

}

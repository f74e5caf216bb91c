package dev.idempotency.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The outbox table as the relay and operators use it: claim due rows, record what the broker said,
 * re-drive dead rows, purge sent ones, read the backlog. Writing a row belongs to the {@link Outbox}
 * implementation of the same store, which must insert it in the business transaction.
 * <p>
 * A row is <em>due</em> when it is {@link OutboxStatus#PENDING}, its next attempt time has passed
 * and no relay holds an unexpired lease on it. Every method other than the reads commits its
 * changes before it returns, in a transaction of its own, whatever transaction the caller has: the
 * counts and flags it returns are committed ones. Every method may throw a
 * {@link org.springframework.dao.DataAccessException} when the store fails; nothing is then
 * committed by that call (a purge keeps the batches it committed before).
 * <p>
 * Implementations are used from the relay's thread and from operators' threads at once, and by
 * relays on several instances sharing one table; they must be thread-safe.
 *
 * @since 0.1.0
 * @see dev.idempotency.outbox.jdbc.JdbcOutboxRepository
 */
public interface OutboxRepository extends OutboxBacklog {

	/**
	 * Claims at most {@code batchSize} due rows, atomically with respect to other relays: a row is
	 * claimed by one relay at a time, and rows another relay is claiming are skipped or waited for,
	 * never returned twice.
	 * @param batchSize the most rows to claim, at least 1
	 * @param lease how long the rows are held; afterwards another relay may claim them again
	 * @param orderedPerKey whether a row waits until every earlier row of its key was sent
	 * @return the claimed rows in id order, each with its lease in {@link OutboxMessage#claimedUntil()};
	 * empty when none is due, never {@code null}
	 */
	List<OutboxMessage> claim(int batchSize, Duration lease, boolean orderedPerKey);

	/**
	 * Marks rows {@link OutboxStatus#SENT} in one transaction, whoever holds their lease now (the
	 * broker has the message either way); rows no longer pending are left alone.
	 * @param rows rows the broker confirmed; may be empty
	 * @return how many rows changed
	 */
	int markSent(List<OutboxMessage> rows);

	/**
	 * Marks rows {@link OutboxStatus#SENT} as {@link #markSent} does, then claims the next batch as
	 * {@link #claim} does, both in one transaction where the store has transactions: a relay that
	 * keeps batches in flight marks one and claims the next at the same moment, and one commit then
	 * serves both. The claim sees the rows just marked as sent. When this method throws, the caller
	 * cannot tell whether the rows were marked: it may mark them again with {@link #markSent} (which
	 * leaves rows no longer pending alone). The default marks, then claims, in two transactions.
	 * @param sent rows the broker confirmed; may be empty
	 * @param batchSize the most rows to claim, at least 1
	 * @param lease how long the claimed rows are held
	 * @param orderedPerKey whether a row waits until every earlier row of its key was sent
	 * @return the claimed rows, as {@link #claim} returns them
	 * @since 0.2.0
	 */
	default List<OutboxMessage> markSentAndClaim(List<OutboxMessage> sent, int batchSize, Duration lease,
			boolean orderedPerKey) {
		markSent(sent);
		return claim(batchSize, lease, orderedPerKey);
	}

	/**
	 * Records a failed attempt that was the message's: the row becomes {@code status} again with its
	 * attempts counted up by one, due at {@code nextAttemptAt}, its lease released and
	 * {@code error} kept as its last error (cut to what the store holds). With
	 * {@link OutboxStatus#DEAD} the row is dead: it is not claimed again until re-driven. One
	 * conditional write: does nothing unless the row is still pending under the lease it was
	 * claimed with.
	 * @param row a row this relay claimed (its {@link OutboxMessage#claimedUntil()} is set)
	 * @param status {@link OutboxStatus#PENDING} or {@link OutboxStatus#DEAD}
	 * @param nextAttemptAt when it is due again
	 * @param error the failure's description
	 * @return whether the row changed; {@code false} when its lease passed to another relay
	 * @throws IllegalStateException if the row was not claimed
	 */
	boolean markFailed(OutboxMessage row, OutboxStatus status, Instant nextAttemptAt, String error);

	/**
	 * Puts a claimed row back to {@link OutboxStatus#PENDING}, due at {@code nextAttemptAt}, without
	 * counting an attempt: the failure was the broker's or the network's, and must not bring the row
	 * closer to {@code DEAD}. Conditional as {@link #markFailed} is.
	 * @param row a row this relay claimed
	 * @param nextAttemptAt when it is due again
	 * @param error the failure's description
	 * @return whether the row changed; {@code false} when its lease passed to another relay
	 * @throws IllegalStateException if the row was not claimed
	 */
	boolean reschedule(OutboxMessage row, Instant nextAttemptAt, String error);

	/**
	 * Reads dead rows, oldest first.
	 * @param limit the most rows to return
	 * @return the rows, never {@code null}
	 */
	List<OutboxMessage> findDead(int limit);

	/**
	 * Reads one row.
	 * @param messageId the row's message id
	 * @return the row, or {@code null} if there is none
	 */
	@Nullable OutboxMessage find(String messageId);

	/**
	 * Sets every dead row back to {@code PENDING}, due now, with its attempts reset, in one
	 * statement.
	 * @return how many rows were re-driven
	 */
	int redriveDead();

	/**
	 * Sets one dead row back to {@code PENDING}, due now, with its attempts reset.
	 * @param messageId the row's message id
	 * @return whether a dead row with that id existed
	 */
	boolean redrive(String messageId);

	/**
	 * Deletes rows sent longer than {@code retention} ago, {@code batchSize} rows per batch, until a
	 * batch comes back short or {@code maxBatches} ran, each batch committed before the next starts.
	 * Never touches pending or dead rows.
	 * @param retention how long sent rows are kept
	 * @param batchSize rows per batch, at least 1
	 * @param maxBatches batches per call, at least 1
	 * @return how many rows were deleted
	 * @throws IllegalArgumentException if {@code batchSize} or {@code maxBatches} is below 1
	 */
	int purgeSent(Duration retention, int batchSize, int maxBatches);

	/**
	 * Reads the backlog now: pending and dead counts and the age of the oldest pending row.
	 * @return the snapshot
	 */
	@Override
	Snapshot snapshot();

}

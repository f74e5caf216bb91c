package dev.idempotency.outbox;

import java.util.List;


/**
 * Operations on the outbox table for people and management endpoints: look at dead messages, send
 * them again once their cause is fixed, read the backlog.
 *
 * @since 0.1.0
 */
public class OutboxAdmin {

	private final OutboxRepository repository;

	/**
	 * Creates the operations on an outbox table.
	 * @param repository the outbox table
	 */
	public OutboxAdmin(OutboxRepository repository) {
		this.repository = repository;
	}

	/**
	 * Dead messages, oldest first, with their last error.
	 * @param limit the most messages to return
	 * @return the messages
	 */
	public List<OutboxMessage> findDead(int limit) {
		return this.repository.findDead(limit);
	}

	/**
	 * One page of dead messages, oldest first. Reads the pages before it too: dead messages are
	 * expected to be few, and a page deep into a large set costs a scan of the pages before it.
	 * @param page the page, from 0
	 * @param size the page's size, at least 1
	 * @return the page's messages, empty past the last page
	 * @since 0.2.0
	 */
	public List<OutboxMessage> findDead(int page, int size) {
		if (page < 0 || size < 1) {
			throw new IllegalArgumentException("page must be at least 0 and size at least 1");
		}
		List<OutboxMessage> upTo = this.repository.findDead(Math.multiplyExact(page + 1, size));
		return upTo.subList(Math.min(upTo.size(), page * size), upTo.size());
	}

	/**
	 * Sets every dead message back to pending, due now, with a fresh set of attempts.
	 * @return how many messages were re-driven
	 */
	public int redriveDead() {
		return this.repository.redriveDead();
	}

	/**
	 * Sets one dead message back to pending, due now, with a fresh set of attempts.
	 * @param messageId the message's id
	 * @return whether a dead message with that id existed
	 */
	public boolean redrive(String messageId) {
		return this.repository.redrive(messageId);
	}

	/**
	 * Reads the backlog now.
	 * @return pending and dead counts and the age of the oldest pending message
	 */
	public OutboxBacklog.Snapshot backlog() {
		return this.repository.snapshot();
	}

}

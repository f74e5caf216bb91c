package dev.idempotency.benchmarks.support;

/**
 * One delivery: a business key (re-sent unchanged by a duplicate), the account it credits and the
 * amount. A class with getters rather than a record, so the key expression reads as users write
 * it: {@code #msg.key}.
 */
public final class Message {

	private final long sequence;

	private final String key;

	private final int account;

	private final long amount;

	Message(long sequence, String key, int account, long amount) {
		this.sequence = sequence;
		this.key = key;
		this.account = account;
		this.amount = amount;
	}

	/** Position in the stream, duplicates included. */
	public long getSequence() {
		return this.sequence;
	}

	public String getKey() {
		return this.key;
	}

	public int getAccount() {
		return this.account;
	}

	public long getAmount() {
		return this.amount;
	}

	@Override
	public String toString() {
		return "Message[" + this.key + " -> account " + this.account + " +" + this.amount + "]";
	}

}

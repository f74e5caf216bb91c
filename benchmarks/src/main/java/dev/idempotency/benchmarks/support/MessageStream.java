package dev.idempotency.benchmarks.support;

import java.util.concurrent.atomic.AtomicLong;

/**
 * An endless stream of messages, shared by all benchmark threads, in which every tenth message
 * re-sends the business key of the message five positions earlier (about 10% duplicates, some of
 * them still in flight on another thread when they arrive, as a broker redelivery can be).
 * <p>
 * Message {@code n} is a duplicate when {@code n % 10 == 9}; it then repeats message {@code n - 5}
 * exactly (key, account, amount). Keys carry a per-run id, so runs never see each other's keys.
 * Because the stream is a pure function of {@code n}, the expected end state after {@link #issued()}
 * messages can be recomputed, see {@link #expected(int)}.
 */
public final class MessageStream {

	/** Distance from a duplicate back to the original it re-sends. */
	public static final int DUPLICATE_DISTANCE = 5;

	private final String runId;

	private final int accounts;

	private final AtomicLong next = new AtomicLong();

	public MessageStream(String runId, int accounts) {
		this.runId = runId;
		this.accounts = accounts;
	}

	/** The next message; safe to call from many threads. */
	public Message next() {
		return message(this.next.getAndIncrement());
	}

	/** How many messages have been handed out. */
	public long issued() {
		return this.next.get();
	}

	static boolean isDuplicate(long n) {
		return n % 10 == 9;
	}

	Message message(long n) {
		long original = isDuplicate(n) ? n - DUPLICATE_DISTANCE : n;
		int account = (int) Math.floorMod(mix(original), (long) this.accounts);
		long amount = 1 + Math.floorMod(original * 31, 97);
		return new Message(n, this.runId + "-" + original, account, amount);
	}

	/**
	 * The end state that applying each unique message once must produce, or, with
	 * {@code everyDelivery}, applying every delivery (what a consumer without deduplication does).
	 */
	public Expected expected(int accountCount, boolean everyDelivery) {
		long issued = issued();
		long[] balances = new long[accountCount];
		long unique = 0;
		for (long n = 0; n < issued; n++) {
			if (everyDelivery || !isDuplicate(n)) {
				Message message = message(n);
				balances[message.getAccount()] += message.getAmount();
				unique++;
			}
		}
		return new Expected(issued, unique, balances);
	}

	private static long mix(long value) {
		long z = value * 0x9E3779B97F4A7C15L;
		z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
		return z ^ (z >>> 31);
	}

	/**
	 * What the database must hold after a run.
	 * @param issued messages delivered, duplicates included
	 * @param unique distinct business keys among them
	 * @param balances the balance of each account
	 */
	public record Expected(long issued, long unique, long[] balances) {
	}

}

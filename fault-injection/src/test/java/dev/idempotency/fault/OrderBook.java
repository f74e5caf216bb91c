package dev.idempotency.fault;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The orders of a run, whatever the transport: what was sent (with producer duplicates: the same
 * order again, later, as a new message) and what the ledger must hold in the end, each order once.
 * Orders are {@code ord-<n>}, each for one of {@value #USERS} users.
 */
final class OrderBook {

	static final int USERS = 50;

	/**
	 * One message of the stream.
	 * @param name the order id, or a poison message's name (the Kafka key, the stream entry's name)
	 * @param json the payload
	 */
	record Message(String name, String json) {

		byte[] bytes() {
			return this.json.getBytes(StandardCharsets.UTF_8);
		}

	}

	/**
	 * What the ledger holds against the orders sent.
	 * @param credits ledger rows per order (poison included, if any was credited)
	 */
	record LedgerCheck(Map<String, Integer> credits, Map<String, Integer> doubles, Set<String> missing, Set<String> unexpected, long sum,
			long expectedSum, boolean balancesMatch) {

		boolean exactlyOnce() {
			return this.doubles.isEmpty() && this.missing.isEmpty() && this.unexpected.isEmpty()
					&& this.sum == this.expectedSum && this.balancesMatch;
		}

		@Override
		public String toString() {
			return "doubles " + this.doubles + ", missing " + this.missing.size()
					+ (this.missing.isEmpty() ? "" : " " + this.missing) + ", unexpected " + this.unexpected + ", sum "
					+ this.sum + " of " + this.expectedSum + ", balances " + (this.balancesMatch ? "match" : "differ");
		}

	}

	private final Random random;

	private final Map<String, Long> expectedPoints = new LinkedHashMap<>();

	private final Map<String, Long> expectedBalances = new HashMap<>();

	private final Map<String, String> users = new HashMap<>();

	private int duplicates;

	OrderBook(Random random) {
		this.random = random;
	}

	/** A new order, once. */
	Message newOrder() {
		String orderId = "ord-" + (this.expectedPoints.size() + 1);
		String userId = "u-" + this.random.nextInt(USERS);
		long points = 1 + this.random.nextInt(100);
		this.expectedPoints.put(orderId, points);
		this.expectedBalances.merge(userId, points, Long::sum);
		this.users.put(orderId, userId);
		return new Message(orderId, json(orderId, userId, points));
	}

	/**
	 * {@code count} new orders, about {@code duplicateRatio} of them sent again 1 to 300 messages
	 * later (a producer retry: same order, new message).
	 */
	List<Message> newOrders(int count, double duplicateRatio) {
		List<Message> originals = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			originals.add(newOrder());
		}
		List<Message> stream = new ArrayList<>();
		List<int[]> pending = new ArrayList<>();
		for (int i = 0; i < originals.size(); i++) {
			stream.add(originals.get(i));
			if (this.random.nextDouble() < duplicateRatio) {
				pending.add(new int[] { i, i + 1 + this.random.nextInt(300) });
			}
			for (var iterator = pending.iterator(); iterator.hasNext();) {
				int[] duplicate = iterator.next();
				if (duplicate[1] <= i) {
					stream.add(originals.get(duplicate[0]));
					iterator.remove();
				}
			}
		}
		pending.forEach((duplicate) -> stream.add(originals.get(duplicate[0])));
		this.duplicates += stream.size() - originals.size();
		return stream;
	}

	int uniqueOrders() {
		return this.expectedPoints.size();
	}

	int duplicates() {
		return this.duplicates;
	}

	/** The points of an order sent. */
	long points(String orderId) {
		return this.expectedPoints.getOrDefault(orderId, 0L);
	}

	/** The user of an order sent. */
	String user(String orderId) {
		return this.users.get(orderId);
	}

	/** Every user's balance when each order is credited once. */
	Map<String, Long> expectedBalances() {
		return new HashMap<>(this.expectedBalances);
	}

	long expectedSum() {
		return this.expectedPoints.values().stream().mapToLong(Long::longValue).sum();
	}

	/** The ledger of the run (every row, poison included) against the orders sent. */
	LedgerCheck check(FaultDatabase database) {
		Map<String, Integer> credits = database.creditsPerOrder("");
		Map<String, Integer> doubles = new TreeMap<>();
		credits.forEach((order, count) -> {
			if (count != 1) {
				doubles.put(order, count);
			}
		});
		Set<String> missing = new TreeSet<>(this.expectedPoints.keySet());
		missing.removeAll(credits.keySet());
		Set<String> unexpected = new TreeSet<>(credits.keySet());
		unexpected.removeAll(this.expectedPoints.keySet());
		return new LedgerCheck(credits, doubles, missing, unexpected, database.ledgerSum(), expectedSum(),
				database.balances().equals(this.expectedBalances));
	}

	static String json(String orderId, String userId, long points) {
		return new String(FaultCluster.json(orderId, userId, points), StandardCharsets.UTF_8);
	}

}

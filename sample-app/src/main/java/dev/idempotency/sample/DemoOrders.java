package dev.idempotency.sample;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * What the demo publishes: distinct valid orders and re-sends of some of them (a retried request, a
 * producer retrying after a lost ack), shuffled together, plus the broken messages: poison orders,
 * orders without an id, and payloads that are not JSON.
 *
 * @param unique the distinct valid orders
 * @param duplicates the re-sent valid orders, each also in {@code unique}
 * @param poison orders whose credit always fails
 * @param invalid orders without an order id
 * @param sends the valid orders and their re-sends, in publishing order
 * @param malformed messages that are not JSON
 */
public record DemoOrders(List<OrderPlaced> unique, List<OrderPlaced> duplicates, List<OrderPlaced> poison,
		List<OrderPlaced> invalid, List<OrderPlaced> sends, int malformed) {

	/** The payload of a malformed message. */
	public static final String MALFORMED_PAYLOAD = "{not json";

	static DemoOrders generate(DemoProperties demo) {
		Random random = new Random(demo.seed());
		List<OrderPlaced> unique = new ArrayList<>();
		for (int i = 1; i <= demo.orders(); i++) {
			unique.add(new OrderPlaced("order-%05d".formatted(i), user(random, demo), 1 + random.nextInt(100)));
		}
		List<OrderPlaced> duplicates = new ArrayList<>();
		long duplicateCount = (unique.isEmpty()) ? 0 : Math.round(demo.orders() * demo.duplicateRatio());
		for (long i = 0; i < duplicateCount; i++) {
			duplicates.add(unique.get(random.nextInt(unique.size())));
		}
		List<OrderPlaced> poison = new ArrayList<>();
		for (int i = 1; i <= demo.poisonOrders(); i++) {
			poison.add(new OrderPlaced("poison-%d".formatted(i), user(random, demo), -1 - random.nextInt(100)));
		}
		List<OrderPlaced> invalid = new ArrayList<>();
		for (int i = 1; i <= demo.invalidOrders(); i++) {
			invalid.add(new OrderPlaced(null, user(random, demo), 10));
		}
		List<OrderPlaced> sends = new ArrayList<>(unique);
		sends.addAll(duplicates);
		Collections.shuffle(sends, random);
		return new DemoOrders(List.copyOf(unique), List.copyOf(duplicates), List.copyOf(poison), List.copyOf(invalid),
				List.copyOf(sends), demo.malformedMessages());
	}

	/** The poison orders and the orders without an id, which a flow sends directly to its broker. */
	public List<OrderPlaced> broken() {
		List<OrderPlaced> broken = new ArrayList<>(this.poison);
		broken.addAll(this.invalid);
		return broken;
	}

	private static String user(Random random, DemoProperties demo) {
		return "user-%03d".formatted(1 + random.nextInt(Math.max(1, demo.users())));
	}

	/** Points the valid orders are worth, each counted once. */
	public long expectedPoints() {
		return this.unique.stream().mapToLong(OrderPlaced::points).sum();
	}

}

package dev.idempotency.sample;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The points accounts and ledger both listeners credit, each under its own flow name so the
 * Kafka and the Redis Stream flows can be checked separately. Runs in the caller's transaction,
 * the one {@code @Idempotent} opened.
 */
@Component
public class PointsBook {

	private final JdbcTemplate jdbc;

	public PointsBook(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Credits an order's points: adds them to the user's balance and writes a ledger row.
	 * @param flow the flow the order arrived through
	 * @param order the order
	 * @throws IllegalArgumentException for the demo's broken orders (no id, no positive points), so
	 * the message is retried and then dead-lettered
	 */
	public void credit(String flow, OrderPlaced order) {
		if (order.orderId() == null || order.orderId().isBlank()) {
			throw new IllegalArgumentException("OrderPlaced without an order id: " + order);
		}
		if (order.points() <= 0) {
			throw new IllegalArgumentException(
					"Order " + order.orderId() + " credits " + order.points() + " points; only positive credits are allowed");
		}
		int updated = this.jdbc.update("UPDATE points_account SET balance = balance + ? WHERE flow = ? AND user_id = ?",
				order.points(), flow, order.userId());
		if (updated == 0) {
			this.jdbc.update("INSERT INTO points_account (flow, user_id, balance) VALUES (?, ?, ?)", flow,
					order.userId(), order.points());
		}
		this.jdbc.update("INSERT INTO points_ledger (flow, order_id, user_id, points) VALUES (?, ?, ?, ?)", flow,
				order.orderId(), order.userId(), order.points());
	}

	/** Rows in the ledger of a flow: one per credit. */
	public long ledgerRows(String flow) {
		return count("SELECT COUNT(*) FROM points_ledger WHERE flow = ?", flow);
	}

	/** Points credited in a flow, all users together. */
	public long pointsCredited(String flow) {
		return count("SELECT COALESCE(SUM(balance), 0) FROM points_account WHERE flow = ?", flow);
	}

	private long count(String sql, String flow) {
		Long value = this.jdbc.queryForObject(sql, Long.class, flow);
		return (value != null) ? value : 0;
	}

}

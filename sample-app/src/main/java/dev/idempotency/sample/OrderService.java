package dev.idempotency.sample;

import java.util.List;

import dev.idempotency.outbox.Outbox;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places orders: the order row and its {@code OrderPlaced} event, written to the starter's outbox,
 * commit together, so there is never an order without its event or an event without its order. The
 * outbox relay sends the event afterwards, with a {@code message-id} header, to every flow of the
 * demo (the Kafka topic, and the Redis Stream when that flow runs).
 */
@Service
public class OrderService {

	private final JdbcTemplate jdbc;

	private final Outbox outbox;

	private final List<String> destinations;

	public OrderService(JdbcTemplate jdbc, Outbox outbox, List<OrderFlow> flows) {
		this.jdbc = jdbc;
		this.outbox = outbox;
		this.destinations = flows.stream().map(OrderFlow::outboxDestination).toList();
	}

	@Transactional
	public void placeOrder(OrderPlaced order) {
		this.jdbc.update("INSERT INTO orders (order_id, user_id, points) VALUES (?, ?, ?)", order.orderId(),
				order.userId(), order.points());
		publish(order);
	}

	/**
	 * Publishes the event of an order placed before once more, as a retried request or an operator's
	 * re-send would. It is a new outbox message with a new message id: only the order id tells the
	 * points service it has seen this order.
	 */
	@Transactional
	public void resendOrderPlaced(String orderId) {
		OrderPlaced order = this.jdbc.queryForObject("SELECT order_id, user_id, points FROM orders WHERE order_id = ?",
				(rs, row) -> new OrderPlaced(rs.getString(1), rs.getString(2), rs.getLong(3)), orderId);
		publish(order);
	}

	/** Orders in the orders table. */
	public long ordersPlaced() {
		Long count = this.jdbc.queryForObject("SELECT COUNT(*) FROM orders", Long.class);
		return (count != null) ? count : 0;
	}

	private void publish(OrderPlaced order) {
		// Keyed by user, as the demo's direct sends: one user's events stay in order on one partition.
		for (String destination : this.destinations) {
			this.outbox.publish(destination, order.userId(), order);
		}
	}

}

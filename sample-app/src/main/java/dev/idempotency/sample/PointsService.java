package dev.idempotency.sample;

import dev.idempotency.annotation.Idempotent;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Service;

/**
 * Credits loyalty points for placed orders: the effect that must happen once per order, however
 * often Kafka delivers the event.
 * <p>
 * {@code @Idempotent} opens the transaction, records {@code ("points", orderId)} in the
 * {@code idempotency_record} table of the same database (the namespace is the consumer group),
 * runs this method and commits both together; the container commits the offset only after that.
 * A second delivery of the same order finds the row and is skipped. An exception rolls back the
 * balance, the ledger row and the dedup row, so the record is retried and, after the configured
 * attempts, published to {@code orders.DLT}.
 */
@Service
public class PointsService {

	private final JdbcTemplate jdbc;

	public PointsService(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@KafkaListener(id = "points", topics = DemoRunner.TOPIC, groupId = "points", concurrency = "${demo.partitions:3}")
	@Idempotent(key = "#order.orderId")
	public void credit(OrderPlaced order) {
		if (order.orderId() == null || order.orderId().isBlank()) {
			throw new IllegalArgumentException("OrderPlaced without an order id: " + order);
		}
		if (order.points() <= 0) {
			throw new IllegalArgumentException(
					"Order " + order.orderId() + " credits " + order.points() + " points; only positive credits are allowed");
		}
		int updated = this.jdbc.update("UPDATE points_account SET balance = balance + ? WHERE user_id = ?",
				order.points(), order.userId());
		if (updated == 0) {
			this.jdbc.update("INSERT INTO points_account (user_id, balance) VALUES (?, ?)", order.userId(),
					order.points());
		}
		this.jdbc.update("INSERT INTO points_ledger (order_id, user_id, points) VALUES (?, ?, ?)", order.orderId(),
				order.userId(), order.points());
	}

}

package dev.idempotency.fault;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The business effect that must happen once per order: the user's balance grows and a ledger row
 * records the credit, with the incarnation that made it. Runs inside the transaction the
 * {@code @Idempotent} interceptor opened, together with the dedup row.
 * <p>
 * The ledger deliberately has no unique constraint on the order: a double credit shows up as a
 * second row instead of being stopped by the database, so the suite measures what
 * {@code @Idempotent} does.
 */
public class PointsLedger {

	private final JdbcTemplate jdbc;

	private final FaultPoints faultPoints;

	private final String runId;

	private final String child;

	PointsLedger(JdbcTemplate jdbc, FaultPoints faultPoints, String runId, String child) {
		this.jdbc = jdbc;
		this.faultPoints = faultPoints;
		this.runId = runId;
		this.child = child;
	}

	void credit(OrderPlaced order, int partition, long offset) {
		String where = "key=" + order.orderId() + " partition=" + partition + " offset=" + offset;
		if (order.points() <= 0) {
			throw new IllegalArgumentException("Order " + order.orderId() + " credits " + order.points()
					+ " points; only positive credits are allowed");
		}
		FaultPoints.Point point = this.faultPoints.onClaimed();
		if (point == FaultPoints.Point.AFTER_COMMIT) {
			this.faultPoints.stopAfterCommit(where);
		}
		this.jdbc.update("INSERT INTO fault_points_account (run_id, user_id, balance) VALUES (?, ?, ?) "
				+ "ON CONFLICT (run_id, user_id) DO UPDATE SET balance = fault_points_account.balance + EXCLUDED.balance",
				this.runId, order.userId(), order.points());
		this.jdbc.update("INSERT INTO fault_points_ledger (run_id, order_id, user_id, points, credited_by, "
				+ "source_partition, source_offset) VALUES (?, ?, ?, ?, ?, ?, ?)", this.runId, order.orderId(),
				order.userId(), order.points(), this.child, partition, offset);
		if (point == FaultPoints.Point.BEFORE_COMMIT) {
			this.faultPoints.stop(point, where);
		}
	}

}

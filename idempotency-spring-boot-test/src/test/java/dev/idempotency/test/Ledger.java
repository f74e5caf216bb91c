package dev.idempotency.test;

import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The effect the kit's test listeners must have once per key: a row per credit in a table of their
 * own, in the database of the dedup table, written in the listener's transaction.
 */
class Ledger {

	private final JdbcTemplate jdbc;

	private final String table = "kit_ledger_" + UUID.randomUUID().toString().substring(0, 8);

	Ledger(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
		jdbc.execute("CREATE TABLE " + this.table + " (order_id VARCHAR(64) NOT NULL)");
	}

	void credit(String orderId) {
		this.jdbc.update("INSERT INTO " + this.table + " (order_id) VALUES (?)", orderId);
	}

	int credits(String orderId) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table + " WHERE order_id = ?", Integer.class,
				orderId);
	}

	void drop() {
		this.jdbc.execute("DROP TABLE IF EXISTS " + this.table);
	}

}

package dev.idempotency.sample;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Counts rows of the starter's outbox table, for the report. (Sent rows are purged after
 * {@code idempotency.outbox.retention}, a day by default: long after the demo has ended.)
 */
@Component
public class OutboxRows {

	private final JdbcTemplate jdbc;

	public OutboxRows(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/** Rows the relay sent to a destination, e.g. {@code kafka:orders}. */
	public long sent(String destination) {
		return count("SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'SENT' AND destination = ?", destination);
	}

	/** Rows sent to any destination. */
	public long sent() {
		return count("SELECT COUNT(*) FROM idempotency_outbox WHERE status = 'SENT'");
	}

	/** Rows not sent (yet): pending or dead. */
	public long unsent() {
		return count("SELECT COUNT(*) FROM idempotency_outbox WHERE status <> 'SENT'");
	}

	private long count(String sql, Object... args) {
		Long count = this.jdbc.queryForObject(sql, Long.class, args);
		return (count != null) ? count : 0;
	}

}

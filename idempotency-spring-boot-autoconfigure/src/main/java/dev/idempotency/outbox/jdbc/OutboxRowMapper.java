package dev.idempotency.outbox.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;

import dev.idempotency.outbox.OutboxMessage;
import dev.idempotency.outbox.OutboxStatus;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.RowMapper;

/**
 * Reads one row of {@link OutboxDialect#COLUMNS} into an {@link OutboxMessage}: timestamps as the
 * dialect wrote them, the headers column as a JSON object (absent when {@code NULL} or empty).
 */
final class OutboxRowMapper implements RowMapper<OutboxMessage> {

	private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {
	};

	private final OutboxDialect dialect;

	private final JsonMapper jsonMapper;

	OutboxRowMapper(OutboxDialect dialect, JsonMapper jsonMapper) {
		this.dialect = dialect;
		this.jsonMapper = jsonMapper;
	}

	@Override
	public OutboxMessage mapRow(ResultSet rs, int row) throws SQLException {
		String headers = rs.getString("headers");
		Instant createdAt = this.dialect.instant(rs, "created_at");
		return new OutboxMessage(rs.getLong("id"), rs.getString("message_id"), rs.getString("destination"),
				rs.getString("message_key"), rs.getString("payload"),
				(headers != null && !headers.isEmpty()) ? this.jsonMapper.readValue(headers, HEADERS) : Map.of(),
				OutboxStatus.valueOf(rs.getString("status")), rs.getInt("attempts"),
				(createdAt != null) ? createdAt : Instant.EPOCH, this.dialect.instant(rs, "claimed_until"),
				rs.getString("last_error"), rs.getString("traceparent"));
	}

}

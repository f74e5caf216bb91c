package dev.idempotency.benchmarks.stream;

import java.util.Map;

import dev.idempotency.annotation.Idempotent;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.redis.stream.RedisStreamListener;

import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.jdbc.core.JdbcTemplate;

/** The user's listener: the entry's fields, the key from the {@code key} field. */
public class StreamListener {

	/** The listener's id, which names its consumer threads. */
	static final String ID = "bench";

	private final JdbcTemplate jdbc;

	public StreamListener(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@RedisStreamListener(id = ID, stream = "${bench.stream}", group = "${bench.group}")
	@Idempotent(key = "#headers['key']")
	public void onEntry(MapRecord<String, String, String> record) {
		Map<String, String> body = record.getValue();
		LedgerTables.apply(this.jdbc, body.get("key"), Integer.parseInt(body.get("account")),
				Long.parseLong(body.get("amount")));
	}

}

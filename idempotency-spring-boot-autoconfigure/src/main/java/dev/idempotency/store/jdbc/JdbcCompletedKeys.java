package dev.idempotency.store.jdbc;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import dev.idempotency.core.CompletedKeySource;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.support.jdbc.DatabasePlatform;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Pages through the completed keys of a dedup table by primary key (keyset pagination: each page
 * starts after the last key of the one before, so no page re-reads the table from the start and no
 * cursor stays open), for {@link CompletedKeySource}.
 *
 * @since 0.2.0
 */
final class JdbcCompletedKeys implements CompletedKeySource {

	private final JdbcTemplate jdbc;

	private final DatabasePlatform platform;

	private final String firstPageSql;

	private final String nextPageSql;

	JdbcCompletedKeys(JdbcTemplate jdbc, DatabasePlatform platform, String tableName) {
		this.jdbc = jdbc;
		this.platform = platform;
		String select = "SELECT namespace, idempotency_key FROM " + tableName + " WHERE status = '"
				+ JdbcIdempotencyStore.COMPLETED + "' AND created_at >= ?";
		String order = " ORDER BY namespace, idempotency_key LIMIT ?";
		this.firstPageSql = select + order;
		this.nextPageSql = select + " AND (namespace > ? OR (namespace = ? AND idempotency_key > ?))" + order;
	}

	@Override
	public long forEachCompletedSince(Instant since, int pageSize, Consumer<IdempotencyKey> action) {
		Object from = this.platform.timestamp(since);
		long streamed = 0;
		IdempotencyKey last = null;
		while (true) {
			List<IdempotencyKey> page = new ArrayList<>(pageSize);
			if (last == null) {
				this.jdbc.query(this.firstPageSql, (rs) -> {
					page.add(new IdempotencyKey(rs.getString(1), rs.getString(2)));
				}, from, pageSize);
			}
			else {
				this.jdbc.query(this.nextPageSql, (rs) -> {
					page.add(new IdempotencyKey(rs.getString(1), rs.getString(2)));
				}, from, last.namespace(), last.namespace(), last.value(), pageSize);
			}
			page.forEach(action);
			streamed += page.size();
			if (page.size() < pageSize) {
				return streamed;
			}
			last = page.get(page.size() - 1);
		}
	}

}

package dev.idempotency.benchmarks.stream;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.benchmarks.support.LedgerTables;
import dev.idempotency.benchmarks.support.PoolSettings;
import io.lettuce.core.Consumer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A hand-written consumer loop per thread: XREADGROUP COUNT batch, then per entry the business
 * transaction (with the insert-or-ignore when {@code dedup}) and XACK after the commit. The
 * transaction is Spring's {@code TransactionTemplate}, which turns auto-commit off for it on a pool
 * that hands out auto-commit connections (Boot's default).
 */
final class HandStreamConsumer extends StreamConsumer {

	private final int batch;

	private final HikariDataSource dataSource;

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();

	private final List<Thread> threads = new ArrayList<>();

	private final AtomicLong failures = new AtomicLong();

	private volatile boolean running;

	private final LedgerTables tables;

	private final String insertSql;

	HandStreamConsumer(String name, String stream, String group, int concurrency, boolean dedup, RedisClient client,
			int batch, PoolSettings pool, LedgerTables tables) {
		super(name, stream, group, dedup);
		this.batch = batch;
		this.tables = tables;
		this.insertSql = tables.insertOrIgnore();
		this.dataSource = pool.newDataSource(tables.database(), concurrency + 2);
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		for (int i = 0; i < concurrency; i++) {
			this.connections.add(client.connect());
		}
	}

	@Override
	String consumerThreadPrefix() {
		return name() + "-";
	}

	@Override
	void start() {
		this.running = true;
		this.threads.clear();
		for (int i = 0; i < this.connections.size(); i++) {
			RedisCommands<String, String> redis = this.connections.get(i).sync();
			String consumer = "hand-" + i;
			Thread thread = new Thread(() -> consume(redis, consumer), name() + "-" + i);
			this.threads.add(thread);
			thread.start();
		}
	}

	private void consume(RedisCommands<String, String> redis, String consumer) {
		Consumer<String> me = Consumer.from(group(), consumer);
		XReadArgs read = XReadArgs.Builder.count(this.batch).block(100);
		while (this.running) {
			List<StreamMessage<String, String>> entries = redis.xreadgroup(me, read,
					XReadArgs.StreamOffset.lastConsumed(stream()));
			for (StreamMessage<String, String> entry : entries) {
				Map<String, String> body = entry.getBody();
				String key = body.get("key");
				int account = Integer.parseInt(body.get("account"));
				long amount = Long.parseLong(body.get("amount"));
				try {
					this.transactions.executeWithoutResult((status) -> {
						if (dedups()) {
							Instant now = Instant.now();
							if (this.jdbc.update(this.insertSql, group(), key, "COMPLETED", this.tables.timestamp(now),
									this.tables.timestamp(now.plus(Duration.ofDays(7)))) == 0) {
								return;
							}
						}
						LedgerTables.apply(this.jdbc, key, account, amount);
					});
					redis.xack(stream(), group(), entry.getId());
				}
				catch (RuntimeException ex) {
					// Left pending: the round does not finish and is marked WRONG.
					if (this.failures.incrementAndGet() <= 3) {
						System.err.println(name() + " failed on " + entry.getId() + ": " + ex);
					}
				}
			}
		}
	}

	@Override
	void stop() {
		this.running = false;
		for (Thread thread : this.threads) {
			try {
				thread.join(5000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void close() {
		stop();
		this.connections.forEach(StatefulRedisConnection::close);
		this.dataSource.close();
	}

}

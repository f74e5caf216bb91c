package dev.idempotency.benchmarks.jmh;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.benchmarks.support.Database;
import dev.idempotency.benchmarks.support.Message;
import dev.idempotency.benchmarks.support.MessageStream;
import dev.idempotency.benchmarks.support.RedisConnections;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Everything one benchmark trial shares: the database, a pool, the message stream and the counters.
 * {@link #prepare()} creates and empties the tables; {@link #verify()} compares the end state with the
 * one that applying each unique message exactly once gives.
 */
public final class Bench implements AutoCloseable {

	/** Accounts credited by the stream. */
	static final int ACCOUNTS = 1000;

	/** How often one message is redelivered after a failure before the run gives up. */
	static final int MAX_ATTEMPTS = 20;

	/** Connections per pool: one per benchmark thread plus headroom for a peer's second connection. */
	static int poolSize(int threads) {
		return threads * 2 + 2;
	}

	private final Database database;

	private final int threads;

	private final String runId = "r" + Long.toString(System.currentTimeMillis(), 36) + "-"
			+ UUID.randomUUID().toString().substring(0, 8);

	private final HikariDataSource dataSource;

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final MessageStream stream;

	private final AtomicLong processed = new AtomicLong();

	private final AtomicLong skipped = new AtomicLong();

	private final AtomicLong failures = new AtomicLong();

	private volatile RuntimeException lastFailure;

	private RedisConnections redis;

	public Bench(Database database, int threads) {
		this.database = database;
		this.threads = threads;
		this.dataSource = database.newDataSource(poolSize(threads));
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		this.stream = new MessageStream(this.runId, ACCOUNTS);
	}

	public Database database() {
		return this.database;
	}

	public int threads() {
		return this.threads;
	}

	/** Unique per trial; used in keys, Redis key names and namespaces. */
	public String runId() {
		return this.runId;
	}

	public HikariDataSource dataSource() {
		return this.dataSource;
	}

	public JdbcTemplate jdbc() {
		return this.jdbc;
	}

	/** A transaction template on the benchmark pool (Spring's DataSourceTransactionManager). */
	public TransactionTemplate transactions() {
		return this.transactions;
	}

	/** Redis connections, opened at first use. */
	public synchronized RedisConnections redis() {
		if (this.redis == null) {
			this.redis = new RedisConnections(this.runId);
		}
		return this.redis;
	}

	/**
	 * Creates the business tables, the starter's dedup table (with the starter's own schema script)
	 * and the Spring Integration metadata table, then empties them and opens every account at zero.
	 */
	public void prepare() {
		for (String ddl : this.database.ddl()) {
			this.jdbc.execute(ddl);
		}
		ResourceDatabasePopulator schema = new ResourceDatabasePopulator(
				new ClassPathResource("dev/idempotency/store/jdbc/schema-" + this.database.id() + ".sql"));
		schema.execute(this.dataSource);
		truncate("bench_ledger", "bench_account", "idempotency_record", "INT_METADATA_STORE", "CAMEL_MESSAGEPROCESSED");
		List<Object[]> accounts = new ArrayList<>(ACCOUNTS);
		for (int i = 0; i < ACCOUNTS; i++) {
			accounts.add(new Object[] { i, 0L });
		}
		this.jdbc.batchUpdate("INSERT INTO bench_account (id, balance) VALUES (?, ?)", accounts);
	}

	private void truncate(String... tables) {
		for (String table : tables) {
			try {
				this.jdbc.execute("TRUNCATE TABLE " + table);
			}
			catch (RuntimeException ex) {
				// A peer's table that does not exist yet: created empty by the peer itself.
			}
		}
	}

	/**
	 * Delivers the next message of the stream to {@code variant}; on failure delivers it again, as a
	 * broker would, up to {@value #MAX_ATTEMPTS} times.
	 */
	public boolean deliver(DedupVariant variant) {
		Message message = this.stream.next();
		for (int attempt = 1;; attempt++) {
			try {
				boolean ran = variant.process(message);
				(ran ? this.processed : this.skipped).incrementAndGet();
				return ran;
			}
			catch (RuntimeException ex) {
				this.failures.incrementAndGet();
				this.lastFailure = ex;
				if (attempt >= MAX_ATTEMPTS) {
					throw new IllegalStateException(message + " failed " + attempt + " times", ex);
				}
				redeliveryPause(attempt);
			}
		}
	}

	/**
	 * A broker redelivers later, not at once: a leased store answers "in progress" to a duplicate
	 * that arrives while the first delivery of its key is still running, and a tight loop would use
	 * up every attempt within that first delivery's transaction.
	 */
	private static void redeliveryPause(int attempt) {
		try {
			Thread.sleep(Math.min(50, 2L * attempt));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted between redeliveries", ex);
		}
	}

	/** Compares the database with the expected end state. */
	public Verdict verify(DedupVariant variant) {
		boolean dedup = variant.deduplicates();
		MessageStream.Expected expected = this.stream.expected(ACCOUNTS, !dedup);
		List<String> problems = new ArrayList<>();
		Long ledgerRows = this.jdbc.queryForObject("SELECT COUNT(*) FROM bench_ledger", Long.class);
		Long distinctKeys = this.jdbc.queryForObject("SELECT COUNT(DISTINCT msg_key) FROM bench_ledger", Long.class);
		if (ledgerRows == null || ledgerRows != expected.unique()) {
			problems.add("ledger rows " + ledgerRows + " != unique messages " + expected.unique());
		}
		if (dedup && (distinctKeys == null || !distinctKeys.equals(ledgerRows))) {
			problems.add((ledgerRows - distinctKeys) + " keys applied more than once");
		}
		long[] balances = new long[ACCOUNTS];
		this.jdbc.query("SELECT id, balance FROM bench_account", (rs) -> {
			balances[rs.getInt(1)] = rs.getLong(2);
		});
		int wrongAccounts = 0;
		long expectedTotal = 0;
		long actualTotal = 0;
		for (int i = 0; i < ACCOUNTS; i++) {
			expectedTotal += expected.balances()[i];
			actualTotal += balances[i];
			if (balances[i] != expected.balances()[i]) {
				wrongAccounts++;
			}
		}
		if (wrongAccounts > 0) {
			problems.add(wrongAccounts + " account balances wrong (total " + actualTotal + ", expected "
					+ expectedTotal + ")");
		}
		if (this.processed.get() != expected.unique()) {
			problems.add("processed " + this.processed.get() + " != unique " + expected.unique());
		}
		RuntimeException failure = this.lastFailure;
		String detail = (dedup ? "" : "no dedup, every delivery applied as expected; ") + "messages=" + expected.issued() + " unique=" + expected.unique() + " processed="
				+ this.processed.get() + " skipped=" + this.skipped.get() + " redeliveries=" + this.failures.get()
				+ ((failure != null) ? " lastFailure=" + rootMessage(failure) : "");
		return new Verdict(problems.isEmpty(), problems.isEmpty() ? detail : String.join("; ", problems) + "; " + detail);
	}

	private static String rootMessage(Throwable ex) {
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		String message = String.valueOf(root.getMessage()).replaceAll("\\s+", " ");
		return root.getClass().getSimpleName() + ": " + message.substring(0, Math.min(160, message.length()));
	}

	@Override
	public void close() {
		if (this.redis != null) {
			this.redis.close();
		}
		this.dataSource.close();
	}

	/**
	 * The outcome of {@link #verify()}.
	 * @param correct whether every unique message was applied exactly once
	 * @param detail counts, and what is wrong if anything
	 */
	public record Verdict(boolean correct, String detail) {
	}

}

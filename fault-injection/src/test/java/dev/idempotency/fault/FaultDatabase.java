package dev.idempotency.fault;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.testsupport.TcpProxy;
import dev.idempotency.testsupport.TestDatabases;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * The PostgreSQL database the child consumers share, seen from the parent, whatever the transport:
 * the starter's dedup table and the points tables (created if missing), the children's connection
 * properties, and the ledger queries the assertions need. Rows carry the run id.
 * <p>
 * The database is {@code idempotency.test.postgres.url} (default
 * {@code jdbc:postgresql://127.0.0.1:5432/test}, as in the other integration tests) and
 * {@code idempotency.test.postgres.username} (default {@code postgres}); in a Failsafe fork
 * ({@code idempotency.test.fork} {@code fault<n>}, see the module's pom) a database of the fork's
 * own next to it, {@code <database>_fault<n>}, created on first use ({@link TestDatabases}), so
 * that two classes running at once never share tables (the leased consumers' reconciler scans the
 * whole dedup table).
 */
final class FaultDatabase implements AutoCloseable {

	static final String DATABASE_URL = TestDatabases.postgresUrl();

	static final String DATABASE_USER = System.getProperty("idempotency.test.postgres.username", "postgres");

	private static final Object SCHEMA = new Object();

	private final HikariDataSource dataSource;

	private final JdbcTemplate jdbc;

	private final String runId;

	FaultDatabase(String runId) {
		this.runId = runId;
		this.dataSource = new HikariDataSource();
		this.dataSource.setJdbcUrl(DATABASE_URL);
		this.dataSource.setUsername(DATABASE_USER);
		this.dataSource.setPassword("");
		this.dataSource.setMaximumPoolSize(2);
		this.dataSource.setPoolName("fault-parent");
		this.jdbc = new JdbcTemplate(this.dataSource);
		ResourceDatabasePopulator schema = new ResourceDatabasePopulator(
				new ClassPathResource("dev/idempotency/store/jdbc/schema-postgresql.sql"),
				new ClassPathResource("fault-schema-postgresql.sql"));
		// One at a time: two CREATE TABLE IF NOT EXISTS of a new table at once can both try to create it.
		synchronized (SCHEMA) {
			schema.execute(this.dataSource);
			addTransactionColumnIfMissing();
		}
	}

	/**
	 * Adds {@code credited_in} to a ledger table created before it. Only if it is missing: an
	 * {@code ALTER TABLE} waits for every open transaction on the table, and another class's
	 * consumers may hold one open across a database outage.
	 */
	private void addTransactionColumnIfMissing() {
		Integer columns = this.jdbc.queryForObject("SELECT COUNT(*) FROM information_schema.columns "
				+ "WHERE table_schema = current_schema() AND table_name = 'fault_points_ledger' "
				+ "AND column_name = 'credited_in'", Integer.class);
		if (columns == null || columns == 0) {
			this.jdbc.execute("ALTER TABLE fault_points_ledger ADD COLUMN IF NOT EXISTS credited_in BIGINT "
					+ "NOT NULL DEFAULT txid_current()");
		}
	}

	String runId() {
		return this.runId;
	}

	JdbcTemplate jdbc() {
		return this.jdbc;
	}

	/**
	 * A child's database properties, and the run id its ledger rows carry.
	 * @param applicationName the child's {@code ApplicationName} in PostgreSQL, so that the suite can
	 * find and terminate its connections
	 */
	Map<String, String> consumerProperties(String applicationName) {
		Map<String, String> properties = new LinkedHashMap<>();
		properties.put("spring.datasource.url",
				DATABASE_URL + (DATABASE_URL.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName);
		properties.put("spring.datasource.username", DATABASE_USER);
		properties.put("fault.run-id", this.runId);
		return properties;
	}

	/**
	 * A child's database properties for a connection through {@code proxy} (outage tests): the
	 * URL's host and port are the proxy's, with a socket timeout so that a statement on a connection
	 * the proxy silently dropped ends in seconds, and the pool waits at most a second for a
	 * connection, so that an outage surfaces quickly as an infrastructure failure.
	 */
	Map<String, String> consumerPropertiesThrough(TcpProxy proxy, String applicationName) {
		Map<String, String> properties = consumerProperties(applicationName);
		String url = properties.get("spring.datasource.url").replaceFirst("//[^/]+/", "//127.0.0.1:" + proxy.port() + "/");
		properties.put("spring.datasource.url", url + "&socketTimeout=10&connectTimeout=2");
		properties.put("spring.datasource.hikari.connection-timeout", "1000");
		return properties;
	}

	/** A proxy in front of this database's PostgreSQL (host and port of {@link #DATABASE_URL}). */
	static TcpProxy proxy() {
		Matcher matcher = Pattern.compile("//([^:/]+)(?::(\\d+))?/").matcher(DATABASE_URL);
		if (!matcher.find()) {
			throw new IllegalStateException("No host in " + DATABASE_URL);
		}
		int port = (matcher.group(2) != null) ? Integer.parseInt(matcher.group(2)) : 5432;
		return TcpProxy.start(matcher.group(1), port);
	}

	/**
	 * Terminates the PostgreSQL backends of one child ({@code pg_terminate_backend}).
	 * @return how many were terminated
	 */
	int terminateConnections(String applicationName) {
		List<Boolean> terminated = this.jdbc.queryForList(
				"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?", Boolean.class,
				applicationName);
		return (int) terminated.stream().filter(Boolean.TRUE::equals).count();
	}

	/** Ledger rows of this run's orders starting with {@code prefix}, per order. */
	Map<String, Integer> creditsPerOrder(String prefix) {
		Map<String, Integer> credits = new HashMap<>();
		this.jdbc.query("SELECT order_id, COUNT(*) FROM fault_points_ledger WHERE run_id = ? AND order_id LIKE ? "
				+ "GROUP BY order_id", (rs) -> {
					credits.put(rs.getString(1), rs.getInt(2));
				}, this.runId, prefix + "%");
		return credits;
	}

	/** Ledger rows of this run, per incarnation that wrote them. */
	Map<String, Integer> creditsPerChild() {
		Map<String, Integer> credits = new HashMap<>();
		this.jdbc.query("SELECT credited_by, COUNT(*) FROM fault_points_ledger WHERE run_id = ? GROUP BY credited_by",
				(rs) -> {
					credits.put(rs.getString(1), rs.getInt(2));
				}, this.runId);
		return credits;
	}

	/**
	 * How many of this run's transactions credited how many orders: ledger rows grouped by the
	 * transaction that wrote them ({@code credited_in}).
	 * @return transactions per number of orders credited, in order of that number
	 */
	SortedMap<Integer, Integer> transactionsBySize() {
		SortedMap<Integer, Integer> sizes = new TreeMap<>();
		this.jdbc.query("SELECT orders, COUNT(*) FROM (SELECT COUNT(*) AS orders FROM fault_points_ledger "
				+ "WHERE run_id = ? GROUP BY credited_in) AS transactions GROUP BY orders", (rs) -> {
					sizes.put(rs.getInt(1), rs.getInt(2));
				}, this.runId);
		return sizes;
	}

	/**
	 * The orders {@code child} committed in the transaction that credited {@code orderId}: that order
	 * alone record by record, the poll's orders with transaction batching.
	 */
	List<String> committedWith(String orderId, String child) {
		return this.jdbc.queryForList("SELECT order_id FROM fault_points_ledger WHERE run_id = ? AND credited_in IN "
				+ "(SELECT credited_in FROM fault_points_ledger WHERE run_id = ? AND order_id = ? AND credited_by = ?) "
				+ "ORDER BY id", String.class, this.runId, this.runId, orderId, child);
	}

	/** Who credited an order (the incarnations, one per ledger row). */
	List<String> creditedBy(String orderId) {
		return this.jdbc.queryForList(
				"SELECT credited_by FROM fault_points_ledger WHERE run_id = ? AND order_id = ? ORDER BY id", String.class,
				this.runId, orderId);
	}

	/** Whether {@code child} credited {@code orderId} from that partition and offset. */
	boolean credited(String child, Journal.Received delivery) {
		Integer rows = this.jdbc.queryForObject("SELECT COUNT(*) FROM fault_points_ledger WHERE run_id = ? "
				+ "AND order_id = ? AND credited_by = ? AND source_partition = ? AND source_offset = ?", Integer.class,
				this.runId, delivery.orderId(), child, delivery.partition(), delivery.offset());
		return rows != null && rows > 0;
	}

	int distinctOrdersCredited(String prefix) {
		return this.jdbc.queryForObject(
				"SELECT COUNT(DISTINCT order_id) FROM fault_points_ledger WHERE run_id = ? AND order_id LIKE ?",
				Integer.class, this.runId, prefix + "%");
	}

	long ledgerSum() {
		Long sum = this.jdbc.queryForObject("SELECT SUM(points) FROM fault_points_ledger WHERE run_id = ?", Long.class,
				this.runId);
		return (sum != null) ? sum : 0;
	}

	Map<String, Long> balances() {
		Map<String, Long> balances = new HashMap<>();
		this.jdbc.query("SELECT user_id, balance FROM fault_points_account WHERE run_id = ?", (rs) -> {
			balances.put(rs.getString(1), rs.getLong(2));
		}, this.runId);
		return balances;
	}

	/** Removes this run's rows, and the dedup rows of its namespaces (unless {@code -Dfault.keep-data=true}). */
	void deleteRunData(Set<String> namespaces) {
		if (Boolean.getBoolean("fault.keep-data")) {
			return;
		}
		this.jdbc.update("DELETE FROM fault_points_ledger WHERE run_id = ?", this.runId);
		this.jdbc.update("DELETE FROM fault_points_account WHERE run_id = ?", this.runId);
		for (String namespace : namespaces) {
			// A Kafka listener's default namespace is <group>:<listener>, so a group's keys sit under both.
			this.jdbc.update("DELETE FROM idempotency_record WHERE namespace = ? OR namespace LIKE ?", namespace,
					namespace + ":%");
		}
	}

	@Override
	public void close() {
		this.dataSource.close();
	}

}

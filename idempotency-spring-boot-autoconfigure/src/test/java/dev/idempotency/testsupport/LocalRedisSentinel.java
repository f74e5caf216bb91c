package dev.idempotency.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;

import static dev.idempotency.testsupport.RedisProcesses.installed;

/**
 * A Redis primary with one replica, watched by three Sentinels, all of the test's own: five
 * {@code redis-server} processes on free loopback ports (three of them with {@code --sentinel}),
 * without persistence, their files in a temporary directory. It never touches the machine's own
 * Redis. {@link #start()} returns once the replica is linked and every Sentinel knows the replica and
 * the two other Sentinels; {@link #close()} kills the processes and deletes the directory, and a
 * shutdown hook does the same if the JVM ends first.
 * <p>
 * The Sentinels need two of them ({@value #QUORUM}) to agree that the primary is down after
 * {@value #DOWN_AFTER_MILLIS} ms without an answer, and give a failover {@value #FAILOVER_TIMEOUT_MILLIS}
 * ms: {@link #killPrimary()} kills the primary with {@code SIGKILL}, and {@link #awaitFailover} waits
 * until the replica was promoted, a few seconds later.
 */
public final class LocalRedisSentinel extends LocalRedisProcesses {

	/** The name under which the Sentinels monitor the primary ({@code spring.data.redis.sentinel.master}). */
	public static final String MASTER = "idempotency-test";

	/** The primary is subjectively down after this long without an answer. */
	public static final int DOWN_AFTER_MILLIS = 1000;

	/** How long a Sentinel gives a failover before another may try. */
	public static final int FAILOVER_TIMEOUT_MILLIS = 3000;

	/** How many Sentinels must agree that the primary is down. */
	public static final int QUORUM = 2;

	private static final int SENTINELS = 3;

	private static final Duration STARTUP = Duration.ofSeconds(60);

	/** What to install on Debian or Ubuntu ({@code redis-cli} comes with redis-server's redis-tools). */
	static final String INSTALL = "apt-get install redis-server redis-sentinel";

	private final PortProcesses servers = new PortProcesses();

	private final PortProcesses sentinels = new PortProcesses();

	private LocalRedisSentinel() {
		super("redis-sentinel");
	}

	/**
	 * Starts the primary, its replica and three Sentinels, and waits until the Sentinels can fail
	 * over. Skips the calling test (an aborted assumption) when {@code redis-server} or
	 * {@code redis-cli} is not installed, or {@code redis-server} cannot run as a Sentinel.
	 * @return the running set-up
	 */
	public static LocalRedisSentinel start() {
		Assumptions.assumeTrue(installed("redis-server") && installed("redis-cli"),
				"redis-server and redis-cli are needed for the Redis Sentinel tests: " + INSTALL);
		LocalRedisSentinel sentinel = new LocalRedisSentinel();
		try {
			List<Integer> ports = RedisProcesses.freePorts(2 + SENTINELS);
			int primary = ports.get(0);
			sentinel.startServer(primary, null);
			sentinel.startServer(ports.get(1), primary);
			for (int port : ports.subList(2, ports.size())) {
				sentinel.startSentinel(port, primary);
			}
			sentinel.awaitReady(STARTUP);
			return sentinel;
		}
		catch (RuntimeException | Error ex) {
			sentinel.close();
			throw ex;
		}
	}

	/**
	 * The ports of the Redis servers started, primary first, killed ones included.
	 * @return the ports
	 */
	public List<Integer> serverPorts() {
		return this.servers.ports();
	}

	/**
	 * The ports of the Sentinels.
	 * @return the ports
	 */
	public List<Integer> sentinelPorts() {
		return this.sentinels.ports();
	}

	/**
	 * The Sentinels as Spring Boot's {@code spring.data.redis.sentinel.nodes} lists them.
	 * @return {@code 127.0.0.1:<port>,...}
	 */
	public String nodes() {
		return this.sentinels.nodes();
	}

	/**
	 * Spring Boot properties that point {@code spring.data.redis} at these Sentinels.
	 * @return the properties, for a context runner or {@code SpringApplication}
	 */
	public String[] properties() {
		return new String[] { "spring.data.redis.sentinel.master=" + MASTER, "spring.data.redis.sentinel.nodes=" + nodes() };
	}

	/**
	 * The port of the primary, as the Sentinels name it now ({@code SENTINEL get-master-addr-by-name}).
	 * @return the primary's port
	 */
	public int primary() {
		for (int port : this.sentinels.live()) {
			List<String> address = cli(port, "SENTINEL", "get-master-addr-by-name", MASTER).lines().toList();
			if (address.size() == 2) {
				return Integer.parseInt(address.get(1).trim());
			}
		}
		throw new IllegalStateException("No Sentinel names a primary for " + MASTER);
	}

	/**
	 * The role a server reports itself ({@code INFO replication}).
	 * @param port the server's port
	 * @return {@code master} or {@code slave}
	 */
	public String role(int port) {
		return field(cli(port, "INFO", "replication"), "role");
	}

	/**
	 * Sends a command to one of the servers, for a test that looks at a server directly.
	 * @param port the server's port
	 * @param arguments the command and its arguments
	 * @return the reply, as {@code redis-cli} prints it
	 */
	public String cli(int port, String... arguments) {
		return RedisProcesses.cli(port, arguments);
	}

	/**
	 * Holds the replicas' replication back for {@code duration} ({@code CLIENT PAUSE WRITE} on each
	 * replica: it still answers reads, and applies the primary's writes only when the pause ends). A
	 * primary killed meanwhile takes the writes it acknowledged during the pause with it: the replica
	 * drops what it had received but not applied when its link breaks. This is the window of
	 * asynchronous replication, made as wide as a test needs.
	 * @param duration how long to hold the replicas back
	 */
	public void holdReplicasBack(Duration duration) {
		int primary = primary();
		for (int port : this.servers.live()) {
			if (port != primary) {
				String answer = cli(port, "CLIENT", "PAUSE", String.valueOf(duration.toMillis()), "WRITE").trim();
				if (!"OK".equals(answer)) {
					throw new IllegalStateException("CLIENT PAUSE on " + port + ": " + answer);
				}
			}
		}
	}

	/**
	 * Ends a {@link #holdReplicasBack} pause early ({@code CLIENT UNPAUSE} on every live server).
	 */
	public void releaseReplicas() {
		for (int port : this.servers.live()) {
			cli(port, "CLIENT", "UNPAUSE");
		}
	}

	/**
	 * Kills the current primary with {@code SIGKILL}, as a crashed server; what it had not passed on to
	 * its replica is gone with it.
	 * @return the killed primary's port
	 */
	public int killPrimary() {
		int primary = primary();
		RedisProcesses.kill(this.servers.get(primary));
		return primary;
	}

	/**
	 * Waits until every live Sentinel names a primary other than {@code killed}, and that server
	 * answers as a primary: the replica was promoted.
	 * @param killed the port of the primary that was killed
	 * @param timeout how long to wait at most
	 * @return the new primary's port
	 */
	public int awaitFailover(int killed, Duration timeout) {
		RedisProcesses.await(timeout, () -> notPromoted(killed), "No failover from " + killed);
		return primary();
	}

	@Override
	List<Process> processes() {
		List<Process> all = new ArrayList<>(this.sentinels.all());
		all.addAll(this.servers.all());
		return all;
	}

	private void startServer(int port, Integer primary) {
		Path dir = directory().resolve("redis-" + port);
		List<String> command = new ArrayList<>(List.of("redis-server", "--port", String.valueOf(port), "--bind",
				"127.0.0.1", "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no",
				"--protected-mode", "no", "--repl-diskless-sync-delay", "0"));
		if (primary != null) {
			command.addAll(List.of("--replicaof", "127.0.0.1", String.valueOf(primary)));
		}
		Process process = RedisProcesses.start(command, dir.resolve("redis.log"));
		this.servers.put(port, process);
		if (!RedisProcesses.awaitListening(port, process)) {
			throw new IllegalStateException("redis-server did not start on port " + port + ":\n" + log(dir));
		}
	}

	private void startSentinel(int port, int primary) {
		Path dir = directory().resolve("sentinel-" + port);
		Path config = dir.resolve("sentinel.conf");
		// A Sentinel rewrites its configuration file with what it learns: it must be writable.
		String text = String.join("\n", "port " + port, "bind 127.0.0.1", "protected-mode no", "daemonize no",
				"dir " + dir, "sentinel monitor " + MASTER + " 127.0.0.1 " + primary + " " + QUORUM,
				"sentinel down-after-milliseconds " + MASTER + " " + DOWN_AFTER_MILLIS,
				"sentinel failover-timeout " + MASTER + " " + FAILOVER_TIMEOUT_MILLIS,
				"sentinel parallel-syncs " + MASTER + " 1", "");
		try {
			Files.createDirectories(dir);
			Files.writeString(config, text);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Process process = RedisProcesses.start(List.of("redis-server", config.toString(), "--sentinel"),
				dir.resolve("sentinel.log"));
		this.sentinels.put(port, process);
		if (!RedisProcesses.awaitListening(port, process)) {
			String log = log(dir);
			Assumptions.assumeTrue(process.isAlive(),
					() -> "redis-server cannot run as a Sentinel (" + INSTALL + "):\n" + log);
			throw new IllegalStateException("Sentinel did not start on port " + port + ":\n" + log);
		}
	}

	private void awaitReady(Duration timeout) {
		RedisProcesses.await(timeout, this::notReady, "Redis Sentinel set-up not ready");
	}

	/** What is not ready yet, or an empty string. */
	private String notReady() {
		int primary = serverPorts().get(0);
		String replication = cli(serverPorts().get(1), "INFO", "replication");
		if (!"up".equals(field(replication, "master_link_status"))) {
			return "the replica is not linked to the primary";
		}
		for (int port : sentinelPorts()) {
			// SENTINEL MASTER answers field/value pairs, one per line.
			List<String> master = cli(port, "SENTINEL", "MASTER", MASTER).lines().map(String::trim).toList();
			if (!String.valueOf(primary).equals(value(master, "port"))) {
				return "Sentinel " + port + " does not watch the primary yet";
			}
			if (!"1".equals(value(master, "num-slaves"))) {
				return "Sentinel " + port + " does not know the replica yet";
			}
			if (!String.valueOf(SENTINELS - 1).equals(value(master, "num-other-sentinels"))) {
				return "Sentinel " + port + " does not know the other Sentinels yet";
			}
		}
		return "";
	}

	/** What the failover from {@code killed} still misses, or an empty string once it happened. */
	private String notPromoted(int killed) {
		Integer named = null;
		for (int port : this.sentinels.live()) {
			List<String> address = cli(port, "SENTINEL", "get-master-addr-by-name", MASTER).lines().toList();
			if (address.size() != 2) {
				return "Sentinel " + port + " names no primary";
			}
			int primary = Integer.parseInt(address.get(1).trim());
			if (primary == killed) {
				return "Sentinel " + port + " still names the killed primary";
			}
			if (named != null && named != primary) {
				return "the Sentinels name different primaries";
			}
			named = primary;
		}
		if (named == null) {
			return "no Sentinel is running";
		}
		return "master".equals(role(named)) ? "" : named + " does not answer as a primary yet";
	}

	/** A field of an {@code INFO} answer ({@code name:value} lines). */
	private static String field(String info, String name) {
		return info.lines()
			.map(String::trim)
			.filter((line) -> line.startsWith(name + ":"))
			.map((line) -> line.substring(name.length() + 1))
			.findFirst()
			.orElse("");
	}

	/** The value after {@code name} in a list of alternating names and values. */
	private static String value(List<String> pairs, String name) {
		for (int i = 0; i + 1 < pairs.size(); i += 2) {
			if (pairs.get(i).equals(name)) {
				return pairs.get(i + 1);
			}
		}
		return "";
	}

	private static String log(Path dir) {
		try (Stream<Path> files = Files.list(dir)) {
			StringBuilder text = new StringBuilder();
			for (Path file : files.filter((path) -> path.toString().endsWith(".log")).toList()) {
				text.append(Files.readString(file));
			}
			return text.toString();
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

}

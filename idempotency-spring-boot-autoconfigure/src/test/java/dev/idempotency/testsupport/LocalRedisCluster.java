package dev.idempotency.testsupport;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.junit.jupiter.api.Assumptions;

import static dev.idempotency.testsupport.RedisProcesses.installed;

/**
 * A Redis Cluster of the test's own: six {@code redis-server} processes on free loopback ports (three
 * primaries, three replicas), without persistence, their cluster configuration files in a temporary
 * directory. It never touches the machine's own Redis. {@link #start()} returns once every node says
 * {@code cluster_state:ok} and every replica is linked to its primary; {@link #close()} kills the
 * processes and deletes the directory, and a shutdown hook does the same if the JVM ends first (a
 * failing test, an interrupted build).
 * <p>
 * One cluster per test class ({@code @TestInstance(PER_CLASS)}, started in {@code @BeforeAll}, closed
 * in {@code @AfterAll}): creating one takes a few seconds. {@link #kill(int)} kills a node with
 * {@code SIGKILL} for failover tests; the short {@value #NODE_TIMEOUT_MILLIS} ms node timeout lets a
 * replica take over within a few seconds.
 */
public final class LocalRedisCluster extends LocalRedisProcesses {

	/** Nodes are considered failed after this long without an answer ({@code cluster-node-timeout}). */
	public static final int NODE_TIMEOUT_MILLIS = 2000;

	private static final int NODES = 6;

	private static final Duration STARTUP = Duration.ofSeconds(60);

	private final PortProcesses processes = new PortProcesses();

	private LocalRedisCluster() {
		super("redis-cluster");
	}

	/**
	 * Starts a 3-primary, 3-replica cluster and waits until it serves every slot. Skips the calling
	 * test (an aborted assumption) when {@code redis-server} or {@code redis-cli} is not installed.
	 * @return the running cluster
	 */
	public static LocalRedisCluster start() {
		Assumptions.assumeTrue(installed("redis-server") && installed("redis-cli"),
				"redis-server and redis-cli are needed for the Redis Cluster tests: apt-get install redis-server");
		LocalRedisCluster cluster = new LocalRedisCluster();
		try {
			cluster.startNodes();
			cluster.create();
			cluster.awaitHealthy(STARTUP);
			return cluster;
		}
		catch (RuntimeException | Error ex) {
			cluster.close();
			throw ex;
		}
	}

	/**
	 * The ports of all nodes started, primaries and replicas, killed ones included.
	 * @return the ports, in start order
	 */
	public List<Integer> ports() {
		return this.processes.ports();
	}

	/**
	 * The nodes as Spring Boot's {@code spring.data.redis.cluster.nodes} lists them.
	 * @return {@code 127.0.0.1:<port>,...}
	 */
	public String nodes() {
		return this.processes.nodes();
	}

	/**
	 * Spring Boot properties that point {@code spring.data.redis} at this cluster.
	 * @return the properties, for a context runner or {@code SpringApplication}
	 */
	public String[] properties() {
		return new String[] { "spring.data.redis.cluster.nodes=" + nodes() };
	}

	/**
	 * The ports of the nodes that are primaries now, as a live node sees the cluster.
	 * @return the primaries' ports, sorted
	 */
	public List<Integer> primaries() {
		return nodesWithFlag("master");
	}

	/**
	 * The ports of the nodes that are replicas now.
	 * @return the replicas' ports, sorted
	 */
	public List<Integer> replicas() {
		return nodesWithFlag("slave");
	}

	/**
	 * The port of the primary that serves {@code key}'s hash slot now.
	 * @param key a Redis key
	 * @return the primary's port
	 */
	public int primaryOf(String key) {
		String slot = cli(livePort(), "CLUSTER", "KEYSLOT", key).trim();
		int wanted = Integer.parseInt(slot);
		// CLUSTER NODES: id address flags primary ping pong epoch link slot-range...
		for (String line : cli(livePort(), "CLUSTER", "NODES").lines().toList()) {
			String[] fields = line.split(" ");
			if (fields.length < 9 || !fields[2].contains("master") || fields[2].contains("fail")) {
				continue;
			}
			for (int i = 8; i < fields.length; i++) {
				String[] range = fields[i].split("-");
				if (range[0].startsWith("[")) {
					continue;
				}
				int start = Integer.parseInt(range[0]);
				int end = (range.length > 1) ? Integer.parseInt(range[1]) : start;
				if (start <= wanted && wanted <= end) {
					return port(fields[1]);
				}
			}
		}
		throw new IllegalStateException("No primary serves slot " + slot);
	}

	/**
	 * Sends a command to one node, for a test that talks to a node directly.
	 * @param port the node's port
	 * @param arguments the command and its arguments
	 * @return the reply, as {@code redis-cli} prints it
	 */
	public String cli(int port, String... arguments) {
		return RedisProcesses.cli(port, arguments);
	}

	/**
	 * Kills a node with {@code SIGKILL}, as a crashed server; its data is gone with it.
	 * @param port the node's port
	 */
	public void kill(int port) {
		RedisProcesses.kill(this.processes.get(port));
	}

	/**
	 * Waits until every live node says {@code cluster_state:ok}, every live replica is linked to its
	 * primary, and every live node sees three primaries and the other live nodes as their replicas
	 * (after a failover: until a replica was promoted and every node knows it).
	 * @param timeout how long to wait at most
	 */
	public void awaitHealthy(Duration timeout) {
		RedisProcesses.await(timeout, this::unhealthy, "Redis Cluster not healthy");
	}

	@Override
	List<Process> processes() {
		return this.processes.all();
	}

	private void startNodes() {
		List<Integer> free = RedisProcesses.freePorts(NODES * 2);
		for (int i = 0; i < NODES; i++) {
			int port = free.get(i);
			int busPort = free.get(NODES + i);
			Path dir = directory().resolve("node-" + port);
			Process process = RedisProcesses.start(List.of("redis-server", "--port", String.valueOf(port), "--bind",
					"127.0.0.1", "--cluster-enabled", "yes", "--cluster-port", String.valueOf(busPort),
					"--cluster-config-file", dir.resolve("nodes.conf").toString(), "--cluster-node-timeout",
					String.valueOf(NODE_TIMEOUT_MILLIS), "--dir", dir.toString(), "--save", "", "--appendonly", "no",
					"--daemonize", "no", "--protected-mode", "no",
					// A replica's first sync starts at once, not after the default 5 s that a
					// diskless sync waits for more replicas: start() waits for every replica.
					"--repl-diskless-sync-delay", "0"), dir.resolve("redis.log"));
			this.processes.put(port, process);
		}
		for (int port : this.processes.ports()) {
			if (!RedisProcesses.awaitListening(port, this.processes.get(port))) {
				throw new IllegalStateException("redis-server did not start on port " + port);
			}
		}
	}

	private void create() {
		List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
		ports().forEach((port) -> command.add("127.0.0.1:" + port));
		command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
		String output = RedisProcesses.run(command);
		if (!output.contains("[OK] All 16384 slots covered")) {
			throw new IllegalStateException("redis-cli --cluster create failed:\n" + output);
		}
	}

	/** What is not healthy yet, or an empty string. */
	private String unhealthy() {
		for (int port : this.processes.live()) {
			String info = cli(port, "CLUSTER", "INFO");
			if (!info.contains("cluster_state:ok")) {
				return port + " is not ok";
			}
			String replication = cli(port, "INFO", "replication");
			if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
				return port + " is a replica not linked to its primary";
			}
		}
		// The roles spread by gossip: a node may still take a new replica for a primary without slots.
		List<Integer> live = this.processes.live();
		for (int port : live) {
			String nodes = cli(port, "CLUSTER", "NODES");
			if (nodesWithFlag(nodes, "master").size() != 3 || nodesWithFlag(nodes, "slave").size() != live.size() - 3) {
				return port + " does not see three primaries and their replicas yet";
			}
		}
		return "";
	}

	private List<Integer> nodesWithFlag(String flag) {
		return nodesWithFlag(cli(livePort(), "CLUSTER", "NODES"), flag);
	}

	/** The nodes of a {@code CLUSTER NODES} answer with {@code flag} and not failed. */
	private static List<Integer> nodesWithFlag(String clusterNodes, String flag) {
		List<Integer> ports = new ArrayList<>();
		for (String line : clusterNodes.lines().toList()) {
			String[] fields = line.split(" ");
			if (fields.length > 2 && List.of(fields[2].split(",")).contains(flag)
					&& !fields[2].contains("fail")) {
				ports.add(port(fields[1]));
			}
		}
		ports.sort(Comparator.naturalOrder());
		return ports;
	}

	/** The port of a CLUSTER NODES address, {@code ip:port@bus-port}. */
	private static int port(String address) {
		return Integer.parseInt(address.substring(address.indexOf(':') + 1, address.indexOf('@')));
	}

	private int livePort() {
		List<Integer> live = this.processes.live();
		if (live.isEmpty()) {
			throw new IllegalStateException("No Redis Cluster node is running");
		}
		return live.get(0);
	}

}

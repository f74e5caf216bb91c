package dev.idempotency.testsupport;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Processes by the loopback port they listen on, in start order; safe to read while a test kills
 * them and the shutdown hook runs.
 */
final class PortProcesses {

	private final Map<Integer, Process> processes = new LinkedHashMap<>();

	synchronized void put(int port, Process process) {
		this.processes.put(port, process);
	}

	/**
	 * The process on {@code port}.
	 * @throws IllegalArgumentException if none was started there
	 */
	synchronized Process get(int port) {
		Process process = this.processes.get(port);
		if (process == null) {
			throw new IllegalArgumentException("No process of this set-up on port " + port);
		}
		return process;
	}

	/** The ports, killed processes' included. */
	synchronized List<Integer> ports() {
		return List.copyOf(this.processes.keySet());
	}

	/** The ports of the processes still alive. */
	synchronized List<Integer> live() {
		return this.processes.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().isAlive())
			.map(Map.Entry::getKey)
			.toList();
	}

	synchronized List<Process> all() {
		return new ArrayList<>(this.processes.values());
	}

	/** The ports as Spring Boot's {@code spring.data.redis.*.nodes} lists them: {@code 127.0.0.1:<port>,...}. */
	String nodes() {
		return ports().stream().map((port) -> "127.0.0.1:" + port).collect(Collectors.joining(","));
	}

}

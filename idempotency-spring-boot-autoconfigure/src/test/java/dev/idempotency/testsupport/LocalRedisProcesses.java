package dev.idempotency.testsupport;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@link LocalRedisCluster} and {@link LocalRedisSentinel} share as a set of {@code redis-server}
 * processes of the test's own: their temporary directory, and killing every process and deleting
 * the directory on {@link #close()}, or in a shutdown hook if the JVM ends first (a failing test, an
 * interrupted build).
 */
abstract class LocalRedisProcesses implements AutoCloseable {

	private final Path directory;

	private final Thread shutdownHook;

	/**
	 * Creates the temporary directory and registers the shutdown hook.
	 * @param name what the processes are, for the directory's and the hook's names
	 */
	LocalRedisProcesses(String name) {
		this.directory = RedisProcesses.temporaryDirectory("idempotency-" + name + "-");
		this.shutdownHook = new Thread(this::destroy, "local-" + name + "-shutdown");
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	/** The temporary directory of the configuration files and logs. */
	Path directory() {
		return this.directory;
	}

	/** Every process started, killed ones included. */
	abstract List<Process> processes();

	/** Kills every process and deletes the directory. */
	@Override
	public void close() {
		destroy();
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// The JVM is shutting down: the hook runs (or ran) anyway.
		}
	}

	private void destroy() {
		List<Process> all = processes();
		all.forEach(Process::destroyForcibly);
		all.forEach(RedisProcesses::kill);
		RedisProcesses.deleteDirectory(this.directory);
	}

}

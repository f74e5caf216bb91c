package dev.idempotency.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * What {@link LocalRedisCluster} and {@link LocalRedisSentinel} share: free loopback ports,
 * commands to one node, waiting for a port to listen or a set-up to be ready, and cleaning up the
 * temporary directory.
 */
final class RedisProcesses {

	private RedisProcesses() {
	}

	/** Whether {@code program} is an executable on the {@code PATH}. */
	static boolean installed(String program) {
		String path = System.getenv("PATH");
		if (path == null) {
			return false;
		}
		return Stream.of(path.split(File.pathSeparator)).anyMatch((dir) -> Files.isExecutable(Path.of(dir, program)));
	}

	/** A new temporary directory whose name starts with {@code prefix}. */
	static Path temporaryDirectory(String prefix) {
		try {
			return Files.createTempDirectory(prefix);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Starts {@code command}, its output going to {@code log} (its directory created if need be). */
	static Process start(List<String> command, Path log) {
		try {
			Files.createDirectories(log.getParent());
			return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + command, ex);
		}
	}

	/** Kills {@code process} with {@code SIGKILL} and waits for it to end. */
	static void kill(Process process) {
		process.destroyForcibly();
		try {
			process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Sends a command to the server on {@code port} and returns its reply as {@code redis-cli} prints
	 * it, without starting a {@code redis-cli} process ({@link RedisNodeCommand}).
	 */
	static String cli(int port, String... arguments) {
		return RedisNodeCommand.call(port, arguments);
	}

	/** Runs {@code command} and returns its output (standard output and error). */
	static String run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			byte[] output = process.getInputStream().readAllBytes();
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException("Timed out: " + command);
			}
			return new String(output, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted: " + command, ex);
		}
	}

	/**
	 * Waits until something listens on {@code port}, or {@code process} ended.
	 * @return whether the port listens
	 */
	static boolean awaitListening(int port, Process process) {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (System.nanoTime() < deadline && process.isAlive()) {
			try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
				return true;
			}
			catch (IOException ex) {
				sleep(20);
			}
		}
		return false;
	}

	/**
	 * Asks {@code missing} every 100 ms until it answers an empty string.
	 * @param timeout how long to wait at most
	 * @param missing what is missing yet, or an empty string
	 * @param what what is awaited, for the exception's message
	 * @throws IllegalStateException with the last answer if {@code timeout} passed first
	 */
	static void await(Duration timeout, Supplier<String> missing, String what) {
		long deadline = System.nanoTime() + timeout.toNanos();
		String last = "";
		while (System.nanoTime() < deadline) {
			last = missing.get();
			if (last.isEmpty()) {
				return;
			}
			sleep(100);
		}
		throw new IllegalStateException(what + " after " + timeout + ": " + last);
	}

	/** Free ports, held open together so that none is handed out twice. */
	static List<Integer> freePorts(int count) {
		List<ServerSocket> sockets = new ArrayList<>();
		try {
			for (int i = 0; i < count; i++) {
				sockets.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
			}
			return sockets.stream().map(ServerSocket::getLocalPort).toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		finally {
			for (ServerSocket socket : sockets) {
				try {
					socket.close();
				}
				catch (IOException ex) {
					// Free anyway once the process ends.
				}
			}
		}
	}

	/** Deletes {@code directory} and everything in it, if it exists. */
	static void deleteDirectory(Path directory) {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
		}
		catch (IOException ex) {
			// A temporary directory; the operating system cleans it eventually.
		}
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}

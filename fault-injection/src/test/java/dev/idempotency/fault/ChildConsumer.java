package dev.idempotency.fault;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;

/**
 * One incarnation of a consumer application ({@link FaultConsumerApplication} for Kafka,
 * {@link FaultStreamConsumerApplication} for Redis Streams) in a child JVM started with this test
 * JVM's class path ({@link ChildJvm}). Its stdout and stderr go to {@code <name>.log}; the lines starting
 * with {@value FaultChild#PREFIX} are kept for {@link #awaitLine}. Commands go to its
 * stdin. Every child ever started is remembered, so {@link #destroyAll()} leaves no orphan (and a
 * child whose parent died halts itself when its stdin ends).
 */
final class ChildConsumer {

	private static final Set<ChildConsumer> all = new CopyOnWriteArraySet<>();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(ChildConsumer::destroyAll, "fault-children-reaper"));
	}

	/** Exit status of a JVM ended by SIGKILL (128 + 9). */
	static final int SIGKILL_EXIT = 137;

	/** Exit status of a JVM ended by SIGTERM (128 + 15), after its shutdown hooks. */
	static final int SIGTERM_EXIT = 143;

	private final String name;

	private final String ackMode;

	private final Path journal;

	private final Process process;

	private final PrintWriter commands;

	private final List<String> faultLines = new ArrayList<>();

	private final Thread pump;

	private volatile Integer exitStatus;

	private volatile boolean killed;

	private ChildConsumer(String name, String ackMode, Path journal, Process process, Path log) {
		this.name = name;
		this.ackMode = ackMode;
		this.journal = journal;
		this.process = process;
		OutputStream stdin = process.getOutputStream();
		this.commands = new PrintWriter(new OutputStreamWriter(stdin, StandardCharsets.UTF_8), true);
		this.pump = new Thread(() -> pump(log), "fault-pump-" + name);
		this.pump.setDaemon(true);
		this.pump.start();
	}

	/**
	 * Starts an incarnation of the Kafka consumer.
	 * @param name unique name of the incarnation (also its {@code ApplicationName} in PostgreSQL)
	 * @param directory where its log and journal go
	 * @param ackMode {@code record} or {@code manual_immediate}
	 * @param properties the consumer's system properties (bootstrap servers, database URL, topic...)
	 * @return the running child
	 */
	static ChildConsumer start(String name, Path directory, String ackMode, Map<String, String> properties) {
		return start(FaultConsumerApplication.class, name, directory, ackMode, properties);
	}

	/**
	 * Starts an incarnation.
	 * @param application the child's main class
	 * @param name unique name of the incarnation (also its {@code ApplicationName} in PostgreSQL)
	 * @param directory where its log and journal go
	 * @param ackMode how it acknowledges ({@code fault.ack-mode}; for the logs)
	 * @param properties the consumer's system properties (broker, database URL, topic or stream...)
	 * @return the running child
	 */
	static ChildConsumer start(Class<?> application, String name, Path directory, String ackMode,
			Map<String, String> properties) {
		try {
			Files.createDirectories(directory);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Path journal = directory.resolve(name + ".events");
		Path log = directory.resolve(name + ".log");
		Map<String, String> all = new LinkedHashMap<>(properties);
		all.put("fault.child", name);
		all.put("fault.ack-mode", ackMode);
		all.put("fault.events-file", journal.toAbsolutePath().toString());
		try {
			Process process = new ProcessBuilder(ChildJvm.command(application, all)).redirectErrorStream(true).start();
			ChildConsumer child = new ChildConsumer(name, ackMode, journal, process, log);
			ChildConsumer.all.add(child);
			return child;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void pump(Path log) {
		try (BufferedReader in = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8));
				var out = Files.newBufferedWriter(log)) {
			String line;
			while ((line = in.readLine()) != null) {
				out.write(line);
				out.newLine();
				out.flush();
				int at = line.indexOf(FaultChild.PREFIX);
				if (at >= 0) {
					synchronized (this.faultLines) {
						this.faultLines.add(line.substring(at + FaultChild.PREFIX.length()));
					}
				}
			}
		}
		catch (IOException ex) {
			// the child is gone
		}
	}

	String name() {
		return this.name;
	}

	String ackMode() {
		return this.ackMode;
	}

	Path journal() {
		return this.journal;
	}

	long pid() {
		return this.process.pid();
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	boolean wasKilled() {
		return this.killed;
	}

	Integer exitStatus() {
		return this.exitStatus;
	}

	/** Sends a command line to the child's stdin. */
	void command(String line) {
		this.commands.println(line);
		if (this.commands.checkError()) {
			throw new IllegalStateException("Could not send '" + line + "' to " + this.name);
		}
	}

	List<String> faultLines() {
		synchronized (this.faultLines) {
			return List.copyOf(this.faultLines);
		}
	}

	/** The first {@code @@FAULT} line at or after {@code from} that matches, or {@code null}. */
	String findLine(int from, Predicate<String> matching) {
		synchronized (this.faultLines) {
			for (int i = from; i < this.faultLines.size(); i++) {
				if (matching.test(this.faultLines.get(i))) {
					return this.faultLines.get(i);
				}
			}
		}
		return null;
	}

	int lineCount() {
		synchronized (this.faultLines) {
			return this.faultLines.size();
		}
	}

	/**
	 * Waits for a {@code @@FAULT} line at or after {@code from}; fails early if the child dies.
	 * @return the line, or {@code null} when the timeout passed
	 */
	String awaitLine(int from, Predicate<String> matching, Duration timeout) {
		try {
			await().atMost(timeout).pollInterval(Duration.ofMillis(50)).until(() -> {
				if (findLine(from, matching) != null) {
					return true;
				}
				if (!this.process.isAlive()) {
					throw new IllegalStateException(this.name + " exited with " + this.process.exitValue()
							+ " while the test waited for a line; see its log");
				}
				return false;
			});
		}
		catch (ConditionTimeoutException ex) {
			return null;
		}
		return findLine(from, matching);
	}

	/** Waits until the application is up and its consumer has been assigned partitions. */
	void awaitAssigned(Duration timeout) {
		if (awaitLine(0, (line) -> line.startsWith("ASSIGNED") && !line.endsWith("partitions="), timeout) == null) {
			throw new IllegalStateException(this.name + " got no partitions within " + timeout);
		}
	}

	/**
	 * Arms a fault point to stop the child at the point's {@code at}-th pass, feeds orders with
	 * {@code send} and, while the child has not got there, with {@code sendMore}.
	 * @return the child's line from the point
	 * @throws AssertionError if the child does not arm the point or never reaches it
	 */
	String stopAt(FaultPoints.Point point, int at, Runnable send, Runnable sendMore) {
		int mark = lineCount();
		String label = point.name().toLowerCase().replace('_', '-');
		command("arm " + label + " " + at);
		if (awaitLine(mark, (line) -> line.startsWith("ARMED"), Duration.ofSeconds(30)) == null) {
			throw new AssertionError(this + " did not arm " + label);
		}
		send.run();
		for (int attempt = 0; attempt < 12; attempt++) {
			String line = awaitLine(mark, (l) -> l.startsWith("POINT " + label), Duration.ofSeconds(15));
			if (line != null) {
				return line;
			}
			sendMore.run();
		}
		throw new AssertionError(this + " never reached " + label);
	}

	/**
	 * Sends SIGKILL: {@link ProcessHandle#destroyForcibly()} is {@code kill(pid, SIGKILL)} on Linux;
	 * the exit status, 137, proves it. (Through the {@code ProcessHandle}, not the {@code Process}:
	 * {@code Process.destroy*} also closes our ends of the child's pipes, losing its last lines.)
	 * @return the exit status
	 */
	int kill() {
		this.killed = true;
		this.process.toHandle().destroyForcibly();
		return awaitExit(Duration.ofSeconds(30));
	}

	/**
	 * Sends SIGTERM: Spring shuts down cleanly (the listener container finishes its record and
	 * leaves the group).
	 * @return the exit status
	 */
	int stop() {
		this.process.toHandle().destroy();
		return awaitExit(Duration.ofSeconds(45));
	}

	private int awaitExit(Duration timeout) {
		try {
			if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				this.killed = true;
				this.process.destroyForcibly();
				this.process.waitFor(30, TimeUnit.SECONDS);
			}
			this.pump.join(5000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.process.destroyForcibly();
		}
		this.commands.close();
		this.exitStatus = this.process.exitValue();
		return this.exitStatus;
	}

	/** Destroys every child still running (SIGKILL). */
	static void destroyAll() {
		for (ChildConsumer child : all) {
			if (child.process.isAlive()) {
				child.killed = true;
				child.process.destroyForcibly();
			}
		}
		for (ChildConsumer child : all) {
			try {
				child.process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	@Override
	public String toString() {
		return this.name + "(pid " + this.process.pid() + ", " + this.ackMode + ")";
	}

}

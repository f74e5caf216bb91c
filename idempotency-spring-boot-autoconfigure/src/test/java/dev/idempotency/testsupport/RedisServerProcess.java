package dev.idempotency.testsupport;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} of the test's own, on a free port, without persistence, that can be killed
 * and started again on the same port (an empty Redis, as after a restart that lost its data).
 */
public final class RedisServerProcess implements AutoCloseable {

	private final int port;

	private Process process;

	public RedisServerProcess() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			this.port = socket.getLocalPort();
		}
	}

	public int port() {
		return this.port;
	}

	public void start() throws IOException, InterruptedException {
		this.process = new ProcessBuilder("redis-server", "--port", String.valueOf(this.port), "--save", "",
				"--appendonly", "no", "--daemonize", "no", "--bind", "127.0.0.1")
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (System.nanoTime() < deadline) {
			try (Socket socket = new Socket("127.0.0.1", this.port)) {
				return;
			}
			catch (IOException ex) {
				Thread.sleep(20);
			}
		}
		throw new IllegalStateException("redis-server did not start on port " + this.port);
	}

	public void kill() throws InterruptedException {
		if (this.process != null) {
			this.process.destroyForcibly();
			this.process.waitFor(10, TimeUnit.SECONDS);
			this.process = null;
		}
	}

	@Override
	public void close() throws InterruptedException {
		kill();
	}

}

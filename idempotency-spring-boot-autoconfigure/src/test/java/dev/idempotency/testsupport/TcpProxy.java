package dev.idempotency.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a loopback port in front of a real service (PostgreSQL, MariaDB, Redis), for
 * outage tests: {@link #cut()} refuses new connections (the listening socket is closed, so a
 * client gets "connection refused") and resets the open ones, as a database that went down does;
 * {@link #restore()} accepts again on the same port. Bytes are copied unchanged in both
 * directions, by two daemon threads per connection; a proxy started with a latency
 * ({@link #start(String, int, Duration)}) holds every chunk that long in each direction before
 * passing it on, as a service that far away would (a third and fourth thread per connection),
 * without limiting the throughput.
 */
public final class TcpProxy implements AutoCloseable {

	private final String targetHost;

	private final int targetPort;

	private final int port;

	private final long latencyNanos;

	private final Set<Socket> open = ConcurrentHashMap.newKeySet();

	private final AtomicInteger accepted = new AtomicInteger();

	private volatile ServerSocket server;

	private volatile boolean closed;

	private TcpProxy(String targetHost, int targetPort, Duration latency) throws IOException {
		this.targetHost = targetHost;
		this.targetPort = targetPort;
		this.latencyNanos = latency.toNanos();
		this.server = bind(0);
		this.port = this.server.getLocalPort();
		acceptOn(this.server);
	}

	/**
	 * Starts a proxy on a free loopback port.
	 * @param targetHost the service's host
	 * @param targetPort the service's port
	 * @return the running proxy
	 */
	public static TcpProxy start(String targetHost, int targetPort) {
		return start(targetHost, targetPort, Duration.ZERO);
	}

	/**
	 * Starts a proxy on a free loopback port that delays the bytes in each direction: a request
	 * and its reply take at least twice {@code latency} more than on a direct connection.
	 * @param targetHost the service's host
	 * @param targetPort the service's port
	 * @param latency how long each direction holds a chunk, for example 10 ms for a service 20 ms
	 * away (round trip)
	 * @return the running proxy
	 */
	public static TcpProxy start(String targetHost, int targetPort, Duration latency) {
		if (latency.isNegative()) {
			throw new IllegalArgumentException("latency must not be negative");
		}
		try {
			return new TcpProxy(targetHost, targetPort, latency);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start a proxy to " + targetHost + ":" + targetPort, ex);
		}
	}

	/**
	 * The proxy's port on 127.0.0.1.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Connections accepted so far.
	 * @return the count
	 */
	public int accepted() {
		return this.accepted.get();
	}

	/**
	 * Whether the proxy forwards.
	 * @return {@code false} between {@link #cut()} and {@link #restore()}
	 */
	public synchronized boolean isUp() {
		return this.server != null;
	}

	/** Refuses new connections and resets every open one. Does nothing when already cut. */
	public synchronized void cut() {
		ServerSocket current = this.server;
		this.server = null;
		if (current != null) {
			closeQuietly(current);
		}
		for (Socket socket : this.open) {
			reset(socket);
		}
		this.open.clear();
	}

	/** Accepts connections again, on the same port. Does nothing when up. */
	public synchronized void restore() {
		if (this.server != null || this.closed) {
			return;
		}
		IOException last = null;
		// The port was ours a moment ago; another process taking it meanwhile is unlikely but would
		// make the test fail loudly here.
		for (int attempt = 0; attempt < 50; attempt++) {
			try {
				this.server = bind(this.port);
				acceptOn(this.server);
				return;
			}
			catch (IOException ex) {
				last = ex;
				sleep(100);
			}
		}
		throw new IllegalStateException("Could not listen on port " + this.port + " again", last);
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		cut();
	}

	private static ServerSocket bind(int port) throws IOException {
		ServerSocket socket = new ServerSocket();
		socket.setReuseAddress(true);
		socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 128);
		return socket;
	}

	private void acceptOn(ServerSocket server) {
		Thread acceptor = new Thread(() -> {
			while (!server.isClosed()) {
				try {
					Socket client = server.accept();
					if (server != this.server) {
						// Closing a socket that a thread waits on in accept() lets that accept finish
						// until the thread is signalled: a connection made just after cut() can come in.
						reset(client);
						continue;
					}
					this.accepted.incrementAndGet();
					connect(client);
				}
				catch (IOException ex) {
					// Closed by cut(), or a client that went away.
				}
			}
		}, "tcp-proxy-" + this.port + "-accept");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	private void connect(Socket client) {
		Socket upstream;
		try {
			upstream = new Socket(this.targetHost, this.targetPort);
		}
		catch (IOException ex) {
			reset(client);
			return;
		}
		this.open.add(client);
		this.open.add(upstream);
		pump(client, upstream, "up");
		pump(upstream, client, "down");
		if (this.server == null) {
			// Cut while connecting.
			reset(client);
			reset(upstream);
		}
	}

	private void pump(Socket from, Socket to, String direction) {
		if (this.latencyNanos > 0) {
			delayedPump(from, to, direction);
			return;
		}
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException ex) {
				// Reset by cut(), or closed by one side.
			}
			finally {
				closeQuietly(from);
				closeQuietly(to);
				this.open.remove(from);
				this.open.remove(to);
			}
		}, "tcp-proxy-" + this.port + "-" + direction);
		thread.setDaemon(true);
		thread.start();
	}

	/**
	 * One thread reads and stamps each chunk with the time it is due, another writes it when due:
	 * every chunk is late by the latency, however many follow it.
	 */
	private void delayedPump(Socket from, Socket to, String direction) {
		BlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>();
		Thread reader = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = from.getInputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					chunks.add(new Chunk(System.nanoTime() + this.latencyNanos, Arrays.copyOf(buffer, read)));
				}
			}
			catch (IOException ex) {
				// Reset by cut(), or closed by one side.
			}
			finally {
				chunks.add(Chunk.END);
			}
		}, "tcp-proxy-" + this.port + "-" + direction + "-read");
		Thread writer = new Thread(() -> {
			try (OutputStream out = to.getOutputStream()) {
				Chunk chunk;
				while ((chunk = chunks.take()) != Chunk.END) {
					long wait = chunk.due() - System.nanoTime();
					if (wait > 0) {
						TimeUnit.NANOSECONDS.sleep(wait);
					}
					out.write(chunk.bytes());
					out.flush();
				}
			}
			catch (IOException ex) {
				// Reset by cut(), or closed by one side.
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				closeQuietly(from);
				closeQuietly(to);
				this.open.remove(from);
				this.open.remove(to);
			}
		}, "tcp-proxy-" + this.port + "-" + direction + "-write");
		reader.setDaemon(true);
		writer.setDaemon(true);
		reader.start();
		writer.start();
	}

	/** Closes with SO_LINGER 0, so that the peer sees a reset, not an orderly end. */
	private static void reset(Socket socket) {
		try {
			socket.setSoLinger(true, 0);
		}
		catch (SocketException ex) {
			// Already closed.
		}
		closeQuietly(socket);
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			// Nothing left to do.
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private record Chunk(long due, byte[] bytes) {

		static final Chunk END = new Chunk(0, new byte[0]);

	}

}

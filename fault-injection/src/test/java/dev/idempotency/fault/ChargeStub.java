package dev.idempotency.fault;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * The payment provider of the leased suite, in the parent JVM: a JDK {@link HttpServer} on a free
 * loopback port.
 * <ul>
 * <li>{@code POST /charges/{orderId}} charges: the call is counted on arrival (the provider did the
 * charge even when the caller never sees the answer), then answered 200. A call carrying
 * {@value ChargeClient#HOLD_HEADER} is held after it was counted, until {@link #releaseHeld()} (or a
 * minute), so that the parent can kill the caller during the call.</li>
 * <li>{@code GET /charges/{orderId}} answers {@code charged} or {@code none}, and {@code unknown}
 * for the orders {@link #markUnknown marked} so (the reconciler must then park them).</li>
 * </ul>
 * Thread-safe: every request has a thread of its own, so a held call blocks nobody else.
 */
final class ChargeStub implements AutoCloseable {

	private static final Duration MAX_HOLD = Duration.ofMinutes(1);

	private final HttpServer server;

	private final ExecutorService executor;

	private final Map<String, AtomicInteger> charges = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> queries = new ConcurrentHashMap<>();

	private final Set<String> unknown = ConcurrentHashMap.newKeySet();

	/** Per order: counted down when a held call of it arrived. */
	private final Map<String, CountDownLatch> arrivals = new ConcurrentHashMap<>();

	private volatile CountDownLatch release = new CountDownLatch(1);

	private ChargeStub(HttpServer server, ExecutorService executor) {
		this.server = server;
		this.executor = executor;
	}

	static ChargeStub start() {
		try {
			HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
			ExecutorService executor = Executors.newCachedThreadPool((runnable) -> {
				Thread thread = new Thread(runnable, "charge-stub");
				thread.setDaemon(true);
				return thread;
			});
			ChargeStub stub = new ChargeStub(server, executor);
			server.createContext("/charges/", stub::handle);
			server.setExecutor(executor);
			server.start();
			return stub;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The base URL the children call, {@code http://127.0.0.1:<port>}. */
	String baseUrl() {
		InetSocketAddress address = this.server.getAddress();
		return "http://" + address.getAddress().getHostAddress() + ":" + address.getPort();
	}

	private void handle(HttpExchange exchange) throws IOException {
		try (exchange) {
			String orderId = exchange.getRequestURI().getPath().substring("/charges/".length());
			switch (exchange.getRequestMethod()) {
				case "POST" -> {
					this.charges.computeIfAbsent(orderId, (id) -> new AtomicInteger()).incrementAndGet();
					if (exchange.getRequestHeaders().getFirst(ChargeClient.HOLD_HEADER) != null) {
						CountDownLatch release = this.release;
						this.arrivals.computeIfAbsent(orderId, (id) -> new CountDownLatch(1)).countDown();
						await(release);
					}
					respond(exchange, 200, "charged");
				}
				case "GET" -> {
					this.queries.computeIfAbsent(orderId, (id) -> new AtomicInteger()).incrementAndGet();
					respond(exchange, 200, status(orderId));
				}
				default -> respond(exchange, 405, "method not allowed");
			}
		}
		catch (IOException ex) {
			// The caller is gone (killed during a held call): the charge stands all the same.
		}
	}

	private String status(String orderId) {
		if (this.unknown.contains(orderId)) {
			return "unknown";
		}
		return (charges(orderId) > 0) ? "charged" : "none";
	}

	private static void respond(HttpExchange exchange, int status, String body) throws IOException {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		exchange.sendResponseHeaders(status, bytes.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(bytes);
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(MAX_HOLD.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** How many charges of {@code orderId} arrived (held or answered). */
	int charges(String orderId) {
		AtomicInteger count = this.charges.get(orderId);
		return (count != null) ? count.get() : 0;
	}

	/** Charges per order, of the orders starting with {@code prefix}. */
	Map<String, Integer> chargesPerOrder(String prefix) {
		Map<String, Integer> result = new TreeMap<>();
		this.charges.forEach((order, count) -> {
			if (order.startsWith(prefix)) {
				result.put(order, count.get());
			}
		});
		return result;
	}

	/** Status queries (the reconciler's) of the orders starting with {@code prefix}. */
	int queries(String prefix) {
		return this.queries.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().startsWith(prefix))
			.mapToInt((entry) -> entry.getValue().get())
			.sum();
	}

	/** From now on, {@code GET /charges/orderId} answers {@code unknown}. */
	void markUnknown(String orderId) {
		this.unknown.add(orderId);
	}

	/**
	 * Waits until a held charge of {@code orderId} has arrived; a later held charge of the same
	 * order is waited for anew.
	 * @return whether it arrived within the timeout
	 */
	boolean awaitHeld(String orderId, Duration timeout) {
		try {
			boolean arrived = this.arrivals.computeIfAbsent(orderId, (id) -> new CountDownLatch(1))
				.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
			if (arrived) {
				this.arrivals.remove(orderId);
			}
			return arrived;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/** Lets every held call answer (its caller is usually gone by then); later calls are held anew. */
	void releaseHeld() {
		CountDownLatch released = this.release;
		this.release = new CountDownLatch(1);
		released.countDown();
	}

	@Override
	public void close() {
		releaseHeld();
		this.server.stop(0);
		this.executor.shutdownNow();
	}

}

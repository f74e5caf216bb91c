package dev.idempotency.sample;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import org.springframework.context.SmartLifecycle;

/**
 * A stand-in for an outside payment provider, so the demo needs no account anywhere: a JDK HTTP
 * server on a free loopback port, started and stopped with the application. The application talks
 * to it over real HTTP ({@link PaymentProviderClient}) and knows nothing else about it; the demo and
 * the tests read its counts to check that each payment was charged once.
 * <ul>
 * <li>{@code POST /charges/{id}} charges a payment (the body is the amount in cents) and counts
 * the call. Like many real providers it does not deduplicate: two calls are two charges.</li>
 * <li>{@code GET /charges/{id}} answers {@code charged} or {@code none}: what a reconciler asks.</li>
 * </ul>
 */
public class PaymentProviderStub implements SmartLifecycle {

	private static final String PATH = "/charges/";

	private final Map<String, AtomicInteger> charges = new ConcurrentHashMap<>();

	private final HttpServer server;

	private volatile boolean running;

	/** Binds a free port on the loopback address; {@link #start()} starts serving. */
	public PaymentProviderStub() {
		try {
			this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not bind the payment provider stub", ex);
		}
		this.server.createContext(PATH, this::handle);
	}

	/** Where the stub listens, e.g. {@code http://127.0.0.1:54321}. */
	public URI baseUri() {
		InetSocketAddress address = this.server.getAddress();
		return URI.create("http://" + address.getAddress().getHostAddress() + ":" + address.getPort());
	}

	private void handle(HttpExchange exchange) throws IOException {
		try (exchange; InputStream body = exchange.getRequestBody()) {
			body.readAllBytes();
			String paymentId = exchange.getRequestURI().getPath().substring(PATH.length());
			if (paymentId.isEmpty() || paymentId.contains("/")) {
				respond(exchange, 404, "no such resource");
			}
			else if ("POST".equals(exchange.getRequestMethod())) {
				this.charges.computeIfAbsent(paymentId, (id) -> new AtomicInteger()).incrementAndGet();
				respond(exchange, 201, "charged");
			}
			else if ("GET".equals(exchange.getRequestMethod())) {
				respond(exchange, 200, (charges(paymentId) > 0) ? "charged" : "none");
			}
			else {
				respond(exchange, 405, "method not allowed");
			}
		}
	}

	private static void respond(HttpExchange exchange, int status, String body) throws IOException {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
		exchange.sendResponseHeaders(status, bytes.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(bytes);
		}
	}

	/** How many times a payment was charged. */
	public int charges(String paymentId) {
		AtomicInteger count = this.charges.get(paymentId);
		return (count != null) ? count.get() : 0;
	}

	/** Charges made, all payments together. */
	public long totalCharges() {
		return this.charges.values().stream().mapToLong(AtomicInteger::get).sum();
	}

	/** Charges made per payment, for the payments charged at least once. */
	public Map<String, Integer> chargesByPayment() {
		Map<String, Integer> copy = new TreeMap<>();
		this.charges.forEach((id, count) -> copy.put(id, count.get()));
		return copy;
	}

	@Override
	public void start() {
		this.server.start();
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.server.stop(0);
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Starts before the listener containers and the reconciler's scan, and stops after them. */
	@Override
	public int getPhase() {
		return 0;
	}

}

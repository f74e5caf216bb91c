package dev.idempotency.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The leased consumer's payment provider: the parent's HTTP stub, called with a plain
 * {@link HttpClient}, outside any database transaction. {@code POST /charges/{orderId}} charges,
 * {@code GET /charges/{orderId}} answers {@code charged}, {@code none} or {@code unknown}.
 */
final class ChargeClient {

	/** Header asking the stub to hold the call until the parent releases it (the during-call point). */
	static final String HOLD_HEADER = "X-Fault-Hold";

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final String baseUrl;

	ChargeClient(String baseUrl) {
		this.baseUrl = baseUrl;
	}

	/**
	 * Charges an order.
	 * @param orderId the order
	 * @param hold whether the stub is to hold the call
	 * @throws IllegalStateException if the provider does not answer 200
	 */
	void charge(String orderId, boolean hold) {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(orderId))
			.timeout(Duration.ofSeconds(120))
			.POST(HttpRequest.BodyPublishers.noBody());
		if (hold) {
			request.header(HOLD_HEADER, "true");
		}
		HttpResponse<String> response = send(request.build());
		if (response.statusCode() != 200) {
			throw new IllegalStateException("Charge of " + orderId + " answered " + response.statusCode());
		}
	}

	/**
	 * Asks the provider whether an order was charged.
	 * @param orderId the order
	 * @return {@code charged}, {@code none} or {@code unknown}
	 */
	String status(String orderId) {
		HttpResponse<String> response = send(HttpRequest.newBuilder(uri(orderId)).timeout(Duration.ofSeconds(10))
			.GET()
			.build());
		if (response.statusCode() != 200) {
			throw new IllegalStateException("Status of " + orderId + " answered " + response.statusCode());
		}
		return response.body().trim();
	}

	private URI uri(String orderId) {
		return URI.create(this.baseUrl + "/charges/" + orderId);
	}

	private HttpResponse<String> send(HttpRequest request) {
		try {
			return this.http.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}

package dev.idempotency.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Calls the payment provider over HTTP. The application's only view of the provider: in the demo it
 * points at {@link PaymentProviderStub}, in production it would point at the provider's API.
 */
public class PaymentProviderClient {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

	private final URI baseUri;

	public PaymentProviderClient(URI baseUri) {
		this.baseUri = baseUri;
	}

	/**
	 * Charges a payment. Not idempotent at the provider: every call is a charge.
	 * @param paymentId the payment
	 * @param amountCents the amount in cents
	 * @throws IllegalStateException if the provider refused the charge or could not be reached
	 */
	public void charge(String paymentId, long amountCents) {
		HttpRequest request = request(paymentId).POST(HttpRequest.BodyPublishers.ofString(Long.toString(amountCents)))
			.build();
		send(request, 201);
	}

	/**
	 * Asks the provider whether a payment was charged.
	 * @param paymentId the payment
	 * @return the provider's answer
	 * @throws IllegalStateException if the provider could not be asked
	 */
	public ChargeStatus status(String paymentId) {
		String body = send(request(paymentId).GET().build(), 200);
		return "charged".equals(body) ? ChargeStatus.CHARGED : ChargeStatus.NONE;
	}

	private HttpRequest.Builder request(String paymentId) {
		return HttpRequest.newBuilder(this.baseUri.resolve("/charges/" + paymentId)).timeout(TIMEOUT);
	}

	private String send(HttpRequest request, int expectedStatus) {
		try {
			HttpResponse<String> response = this.http.send(request,
					HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
			if (response.statusCode() != expectedStatus) {
				throw new IllegalStateException(request.method() + " " + request.uri() + " answered "
						+ response.statusCode() + ": " + response.body());
			}
			return response.body();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while calling " + request.uri(), ex);
		}
	}

	/** What the provider knows about a payment. */
	public enum ChargeStatus {

		/** The payment was charged (at least once). */
		CHARGED,

		/** The provider has no charge of the payment. */
		NONE

	}

}
